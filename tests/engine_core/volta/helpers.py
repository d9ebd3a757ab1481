"""Shared scene builders for the Volta tests."""

from __future__ import annotations

import dataclasses

from engine_core.volta import DEFAULT_PHYSICS, Physics, World

FRICTIONLESS = dataclasses.replace(DEFAULT_PHYSICS, ground_friction=0.0)


def world(
    physics: Physics = DEFAULT_PHYSICS,
    rider_masses: tuple[float, float] = (DEFAULT_PHYSICS.rider_mass, DEFAULT_PHYSICS.rider_mass),
    dents: tuple[str, str] = ("large", "large"),
) -> World:
    rims = (physics.dent(dents[0]).rim_radius, physics.dent(dents[1]).rim_radius)
    return World(physics, rider_masses, rims)


def bare_world(physics: Physics = DEFAULT_PHYSICS) -> World:
    """Two steeds without riders."""
    return world(physics, (0.0, 0.0))


def step_to_first_hit(w: World, limit: int = 5000) -> float:
    """Steps until the steeds collide; returns the time of impact."""
    for _ in range(limit):
        hit = w.step()
        if hit is not None:
            return hit
    raise AssertionError("the steeds never met")
