"""examples/convert_tree.py on the real samples: a LocalCluster of two worker
processes converts every UNIGINE sample to .glb, one report per file, one table."""

import importlib.util
import json
import os
from pathlib import Path

import pytest

import meshfmt

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "convert_tree.py"


def test_convert_tree_on_a_local_cluster(samples, tmp_path):
    pytest.importorskip("dask.distributed")
    spec = importlib.util.spec_from_file_location("convert_tree", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    root = samples / "unigine"
    files = example.sources(root)
    records, table = example.run(root, tmp_path, to="glb", workers=2)
    assert [r["file"] for r in records] == sorted(os.path.relpath(f, root) for f in files)
    # Every file has an outcome, and the outcome is what converting it alone gives.
    for r, f in zip(records, files):
        if r["error"]:
            with pytest.raises((meshfmt.FormatError, OSError)):
                meshfmt.convert(f, tmp_path / "alone.glb", force=True)
        else:
            report = json.loads(Path(r["output"] + ".report.json").read_text())
            assert report["files"] == [r["output"]]
            assert meshfmt.info(r["output"])["format"] == "gltf"
    converted = sum(r["error"] is None for r in records)
    assert converted >= 100, table
    assert "unigine-mesh" in table and "unigine-anim" in table
    print(table)
