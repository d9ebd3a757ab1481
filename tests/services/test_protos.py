"""The generated code in protos/ never drifts from the .proto files: they are
regenerated here and compared byte for byte (``make protos`` regenerates)."""

from __future__ import annotations

import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"


def generated_files(root: Path) -> list[Path]:
    """The generated modules and stubs under ``root`` (not bytecode caches)."""
    return [p for p in root.rglob("*_pb2*") if p.suffix in (".py", ".pyi")]


def test_generated_code_matches_the_protos(tmp_path: Path) -> None:
    sources = sorted(str(p.relative_to(PROTOS)) for p in (PROTOS / "meeple/v1").glob("*.proto"))
    assert sources, "no .proto files found"
    well_known = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    status = protoc.main(
        [
            "protoc",
            f"-I{PROTOS}",
            f"-I{well_known}",
            f"--python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            f"--plugin=protoc-gen-mypy_grpc={Path(sys.executable).parent / 'protoc-gen-mypy_grpc'}",
            f"--mypy_grpc_out={tmp_path}",
            *sources,
        ]
    )
    assert status == 0
    generated = sorted(p.relative_to(tmp_path) for p in generated_files(tmp_path))
    committed = sorted(p.relative_to(PROTOS) for p in generated_files(PROTOS))
    assert generated == committed, "run `make protos` and commit the result"
    for path in generated:
        same = (tmp_path / path).read_bytes() == (PROTOS / path).read_bytes()
        assert same, f"{path} differs from its .proto: run `make protos`"
