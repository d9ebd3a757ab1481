"""Package meeple.v1, generated from the .proto files beside this one by
``make protos`` (grpcio-tools); never edit the *_pb2*.py files by hand."""
