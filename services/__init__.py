"""meeple's services: gRPC servicers, coordination, metrics, a client and the CLI."""
