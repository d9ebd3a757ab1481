SEATED_STATE: int
ROLLING_STATE: int
FALLEN_STATE: int
EVENT_KINDS: tuple[str, str, str]

def friction(
    angle: float, vx: float, vy: float, omega: float, half_side: float
) -> tuple[float, float, float]: ...
def contact(
    half_side: float, ax: float, ay: float, aa: float, bx: float, by: float, ba: float
) -> tuple[float, float, float, float, float] | None: ...
def resolve(
    a: tuple[float, float, float, float, float],
    b: tuple[float, float, float, float, float],
    ma: float,
    mb: float,
    inertia: float,
    restitution: float,
    mu: float,
    contact: tuple[float, float, float, float],
) -> tuple[tuple[float, float, float], tuple[float, float, float], bool]: ...
