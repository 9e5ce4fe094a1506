"""PBN export and import through the CLI."""

import subprocess
import sys

import numpy as np
import pytest

from bridgerl.core import load_dataset, make_dataset
from bridgerl.core.dd import solve_dd_tables
from bridgerl.core.generate import deal_owners
from bridgerl.core.pbn import dataset_to_pbn, read_pbn_deals


def test_round_trip_through_cli(tmp_path):
    owner = deal_owners(11, 4)
    source = make_dataset(owner, solve_dd_tables(owner), board=np.array([1, 2, 7, 20]))
    npz = tmp_path / "deals.npz"
    np.savez(npz, owner=source.owner, dd=source.dd, board=source.board)
    pbn, back = tmp_path / "deals.pbn", tmp_path / "back.npz"
    cli = [sys.executable, "-m", "bridgerl.cli", "data"]
    assert subprocess.run(cli + ["to-pbn", str(npz), str(pbn)], capture_output=True).returncode == 0
    text = pbn.read_text()
    assert '[Board "20"]' in text and '[Dealer "W"]' in text and '[Vulnerable "All"]' in text
    assert "OptimumResultTable" in text
    assert subprocess.run(cli + ["from-pbn", str(pbn), str(back)], capture_output=True).returncode == 0
    again = load_dataset(back)
    assert (again.owner == source.owner).all() and (again.dd == source.dd).all()
    assert again.boards.tolist() == [1, 2, 7, 20]


def test_malformed_pbn_is_named(tmp_path):
    with pytest.raises(ValueError, match="malformed PBN"):
        read_pbn_deals('[Board "1"]\n[Deal "N:AKQ.xx"]\n', "bad.pbn")
    with pytest.raises(ValueError, match="no boards"):
        read_pbn_deals("% nothing here\n", "empty.pbn")
    bad = tmp_path / "bad.pbn"
    bad.write_text('[Deal "N:AKQ.JT9 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6"]\n')
    result = subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "from-pbn", str(bad), str(tmp_path / "o.npz")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "bridgerl: error:" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_export_text_is_parsed_back_without_dds():
    owner = deal_owners(12, 2)
    source = make_dataset(owner, np.full((2, 4, 5), 6, np.uint8))
    parsed, boards = read_pbn_deals(dataset_to_pbn(source))
    assert (parsed == owner).all() and boards.tolist() == [1, 2]
