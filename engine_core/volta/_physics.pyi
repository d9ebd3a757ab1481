SEATED_STATE: int
ROLLING_STATE: int
FALLEN_STATE: int
EVENT_KINDS: tuple[str, str, str]
