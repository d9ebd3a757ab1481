"""meeple's services: the CLI now; gRPC servicers, coordination and metrics later."""
