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
