"""Flick resolutions per second: the Volta Cython core against pymunk, same run.

A resolution is one flick simulated until everything is at rest. Scenes (the
same 0.02 N s flick through the centre of steed 0's back, which keeps its
marble when it slides alone):
- lone: steed 0 slides from its start to rest (no contact);
- push-through: steed 1 waits 3 mm ahead, so steed 0 hits it while the finger
  is still pushing and pushes it along through the contact;
- coasting hit: steed 1 waits 10 mm ahead, so steed 0 hits it after the push.

Contenders:
- core: ``World.start_flick`` + ``World.run()`` (the whole loop in C);
- pymunk: the same scene in pymunk (Chipmunk2D), PyPI ``pymunk`` (the
  ``bench`` extra). Ground friction is done the usual pymunk way (its
  "tank" example): a PivotJoint and a GearJoint from each steed to a static
  body with max_bias = 0 and max_force = mu m g (linear) and mu m g * arm
  (rotational, the square's mean lever arm). The finger push is the same
  half-sine force over the flick's duration, applied before each step; the
  step is the same 1 ms, and a body counts as at rest below 1 mm/s and 0.01
  rad/s (the friction joints stop it only asymptotically). Restitution 0.5 and contact friction
  0.3 are shape values whose products are those numbers. Riders are not
  modelled in pymunk (it has nothing like them): each steed carries its
  marble's mass instead, which is what the core does while a marble is seated.

Rounds interleave the contenders so machine noise hits them alike; each rate
is the median over rounds. The issue's target is core >= 50x pymunk.

Usage: python benchmarks/volta_physics.py [--seconds 0.5] [--rounds 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Callable

from timing import rate

from engine_core.volta import DEFAULT_PHYSICS as P
from engine_core.volta import World

IMPULSE = 0.02  # N s: a flick that keeps the rider
GAPS = {"push-through": 0.003, "coasting hit": 0.010}  # m from steed 0 to steed 1
SCENES = ("lone", *GAPS)
LEVER_ARM = P.steed_side * (math.sqrt(2) + math.log(1 + math.sqrt(2))) / 6
REST_SPEED, REST_SPIN = 1e-3, 1e-2


def place(scene: str) -> tuple[tuple[float, float], tuple[float, float]]:
    if scene == "lone":
        return (-P.start_offset, 0.0), (P.start_offset, 0.0)
    return (-P.steed_side - GAPS[scene], 0.0), (0.0, 0.0)


def core_contender(scene: str) -> Callable[[int], float]:
    rim = P.large_dent.rim_radius
    world = World(P, (P.rider_mass, P.rider_mass), (rim, rim))
    (x0, y0), (x1, y1) = place(scene)

    def run(n: int) -> float:
        for _ in range(n):
            world.reset()
            world.set_steed(0, x0, y0, 0.0)
            world.set_steed(1, x1, y1, 0.0)
            world.start_flick(0, 2, 0.0, 0.0, IMPULSE)
            world.run()
        return world.steed(1)[0] - x1 + world.steed(0)[0] - x0

    return run


def pymunk_contender(scene: str) -> Callable[[int], float]:
    import pymunk

    mass = P.steed_mass + P.rider_mass
    moment = P.steed_mass * P.steed_side**2 / 6
    half = P.steed_side / 2
    (x0, y0), (x1, y1) = place(scene)
    duration, dt = P.flick_duration, P.time_step

    def resolve() -> float:
        space = pymunk.Space()
        ground = space.static_body
        bodies = []
        for x, y in ((x0, y0), (x1, y1)):
            body = pymunk.Body(mass, moment)
            body.position = (x, y)
            shape = pymunk.Poly.create_box(body, (P.steed_side, P.steed_side))
            shape.elasticity = math.sqrt(P.restitution)
            shape.friction = math.sqrt(P.contact_friction)
            pivot = pymunk.PivotJoint(ground, body, (0, 0), (0, 0))
            pivot.max_bias = 0
            pivot.max_force = P.ground_friction * mass * P.gravity
            gear = pymunk.GearJoint(ground, body, 0.0, 1.0)
            gear.max_bias = 0
            gear.max_force = P.ground_friction * mass * P.gravity * LEVER_ARM
            space.add(body, shape, pivot, gear)
            bodies.append((body, shape, pivot, gear))
        flicked = bodies[0][0]
        t = 0.0
        on = [True, True]
        while t < P.time_cap:
            if t < duration:
                peak = IMPULSE * math.pi / (2 * duration)
                force = peak * math.sin(math.pi * (t + dt / 2) / duration)
                flicked.apply_force_at_local_point((force, 0.0), (-half, 0.0))
            space.step(dt)
            t += dt
            moving = t < duration
            for i, (body, shape, pivot, gear) in enumerate(bodies):
                if not on[i]:
                    continue
                if body.position.length > P.arena_radius:
                    on[i] = False
                    space.remove(body, shape, pivot, gear)
                    continue
                if body.velocity.length > REST_SPEED or abs(body.angular_velocity) > REST_SPIN:
                    moving = True
            if not moving:
                break
        return bodies[1][0].position.x - x1 + bodies[0][0].position.x - x0

    def run(n: int) -> float:
        travelled = 0.0
        for _ in range(n):
            travelled = resolve()
        return travelled

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    try:
        import pymunk  # noqa: F401
    except ImportError:
        print("pymunk is not installed (pip install -e '.[bench]'): core only")
        have_pymunk = False
    else:
        have_pymunk = True
    for scene in SCENES:
        contenders = {"core": core_contender(scene)}
        if have_pymunk:
            contenders["pymunk"] = pymunk_contender(scene)
        travelled = {name: run(1) for name, run in contenders.items()}
        rates: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, run in contenders.items():
                rates[name].append(rate(run, args.seconds))
        medians = {name: statistics.median(values) for name, values in rates.items()}
        print(f"scene {scene}: flick {IMPULSE} N s, to rest")
        for name, value in medians.items():
            print(
                f"  {name:7s} {value:12,.0f} resolutions/s"
                f"   (steeds travelled {travelled[name] * 100:.2f} cm in total)"
            )
        if "pymunk" in medians:
            ratio = medians["core"] / medians["pymunk"]
            print(f"  ratio core / pymunk: {ratio:.1f}x (target >= 50x)")


if __name__ == "__main__":
    main()
