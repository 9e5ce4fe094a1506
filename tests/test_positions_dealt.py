"""`bridgerl data positions --dealt SEED`: deals of its own, reproducible from the seed the file records and disjoint
from the bundled splits, with no DD table solved; `bridgerl data merge-positions`: a merged file holds exactly the
files it came from."""

import numpy as np
import pytest

from bridgerl.cli import main
from bridgerl.core import load_dataset
from bridgerl.core.generate import DEALT_STREAM, bundled_owners, deal_owners, dealt_owner
from bridgerl.core.positions import load_positions
from bridgerl.evaluation.datasets.positions import generate_positions

PAIR = "bid=rules,play=random"  # a quick player: the deals and labels are what is checked


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    out = tmp_path_factory.mktemp("dealt") / "p.npz"
    return load_positions(generate_positions(out, data="dealt:7", deals=6, ns=PAIR, ew=PAIR, progress=False))


def test_dealt_deals_come_from_the_seed_the_file_records(dealt, tmp_path):
    assert dealt.meta["source"] == "dealt:7" and dealt.deals["row"].tolist() == list(range(6))
    seed = int(dealt.meta["source"].split(":")[1])
    for d, k in enumerate(dealt.deals["row"]):
        assert np.array_equal(dealt.deals["owner"][d], dealt_owner(seed, int(k)))  # made again from the seed
        assert dealt.deals["board"][d] == k + 1
    assert (dealt.deals["dd"] == 255).all()  # no DD table solved for them
    assert not dealt.state(10).deal.has_dd
    # a later piece of the same stream (--start) deals the same deals
    again = load_positions(generate_positions(tmp_path / "q.npz", data="dealt:7", start=4, deals=2, ns=PAIR, ew=PAIR,
                                              progress=False))
    assert np.array_equal(again.deals["owner"], dealt.deals["owner"][4:])
    assert np.array_equal(again.positions["dd"], dealt.positions["dd"][dealt.positions["deal"] >= 4])


def test_dealt_deals_are_not_deals_of_any_dataset(dealt):
    owners = {owner.tobytes() for owner in dealt.deals["owner"]}
    assert not owners & bundled_owners()
    for split in ("train", "valid", "test"):
        assert not owners & {o.tobytes() for o in np.asarray(load_dataset(split).owner, np.uint8)}
    # not the stream `data generate --seed 7` deals from either
    assert not owners & {o.tobytes() for o in deal_owners(7, 50)}
    assert DEALT_STREAM == 0x706F73
    # every legal card DD-labelled as for dataset deals
    legal = dealt.positions["legal"]
    assert ((dealt.positions["dd"] >= 0) == legal).all() and legal.any(axis=1).all()


def test_dealt_and_data_are_one_or_the_other(tmp_path, capsys):
    assert main(["data", "positions", "--dealt", "1", "--data", "test", "--out", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--dealt 1 deals its own deals" in err and "\n" not in err
    with pytest.raises(ValueError, match="dealt deals need a seed"):
        generate_positions(tmp_path / "y.npz", data="dealt:x", deals=1, ns=PAIR, ew=PAIR, progress=False)


def test_merged_positions_equal_the_files_they_came_from(dealt, tmp_path, capsys):
    other = load_positions(generate_positions(tmp_path / "test.npz", data="test", deals=3, ns=PAIR, ew=PAIR,
                                              progress=False))
    out = tmp_path / "merged.npz"
    assert main(["data", "merge-positions", dealt.source, other.source, "--out", str(out)]) == 0
    assert "from 2 files" in capsys.readouterr().out
    merged = load_positions(out)
    d0, p0 = len(dealt.deals["row"]), len(dealt)
    for part, deal_slice, pos_slice, shift in ((dealt, slice(0, d0), slice(0, p0), 0),
                                               (other, slice(d0, None), slice(p0, None), d0)):
        for k, v in part.deals.items():
            width = v.shape[1] if k == "auction" else None
            got = merged.deals[k][deal_slice]
            if width is not None:  # auctions padded with -1 to the longest
                assert (got[:, width:] == -1).all()
                got = got[:, :width]
            assert np.array_equal(got, v), k
        for k, v in part.positions.items():
            assert np.array_equal(merged.positions[k][pos_slice], v + shift if k == "deal" else v), k
        for i in (0, len(part) - 1):  # the same whole-deal states
            a, b = merged.state(pos_slice.start + i), part.state(i)
            assert np.array_equal(a.deal.owner, b.deal.owner) and a.auction == b.auction and a.play == b.play
    assert merged.meta["source"] == "mixed" and [p["file"] for p in merged.meta["identity"]["parts"]] == \
        [dealt.source, other.source]
    assert main(["data", "merge-positions", dealt.source, "--out", str(out)]) == 2  # never overwritten silently
