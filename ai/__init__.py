"""Bots: search algorithms generic over engine_core's Game API.

Dependencies point services -> ai -> engine_core: this package imports
engine_core only, never grpc, Redis or services (tests/test_layout.py checks).
"""
