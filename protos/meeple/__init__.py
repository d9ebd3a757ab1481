"""meeple's public gRPC API: the messages and stubs generated from protos/."""
