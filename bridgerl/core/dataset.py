"""Deal datasets: `.npz` files of deals with DD tables (format in `docs/datasets.md`).

``owner`` uint8[N, 52] (seat holding each card), ``dd`` uint8[N, 4, 5] (tricks for declarer seat x strain),
optional ``board`` int32[N]. Extra arrays (such as ``seed``) are accepted and ignored.

Optional played-tricks table (issue #38, `bridgerl data played`): ``played`` int8[N, 4, 5] in the ``dd`` layout,
the tricks each declarer took in each strain with a learned card player at all four seats, with the scalars
``played_player`` (the model's path), ``played_hash`` (SHA-256 of its checkpoint) and ``played_level`` ("dd" or
1..7: the level the games were bid at). ``load_dataset(..., tricks="played")`` returns the dataset with the played
table *in use*: ``Dataset.dd`` is then that table, so every reader of ``dd`` (rewards, par and constructive par,
the DD-scored matches) follows it; ``Dataset.tables`` keeps both.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from .files import atomic_write_with


class DatasetError(ValueError):
    """A dataset that cannot be used, with the reason in one line."""


TRICKS = ("dd", "played")
"""The trick tables a dataset can score with (``tricks=``)."""
PLAYED_META = ("played_player", "played_hash", "played_level")
"""The scalars that record who made a played table."""


@dataclass(frozen=True)
class Dataset:
    """Deals with their tricks tables. ``boards`` is the board number of each row. ``dd`` is the table in use:
    the double-dummy table, or with ``tricks == "played"`` the played table. ``tables`` (None when the file had no
    played table): {"dd", "played"} arrays and the played table's recorded player (`PLAYED_META`)."""

    owner: np.ndarray
    dd: np.ndarray
    board: np.ndarray | None = None
    source: str = "<arrays>"
    tricks: str = "dd"
    tables: dict | None = None
    file: str | None = field(default=None, compare=False, repr=False)
    """The .npz file this dataset is, whole, when it was loaded from one (`reference`); None for arrays and
    subsets."""

    def reference(self) -> tuple | None:
        """(file, tricks, content hash) naming this dataset for a pickled env (`shared_source`), or None when it is
        not a whole file. The hash is computed once."""
        if self.file is None:
            return None
        if "_hash" not in self.__dict__:
            object.__setattr__(self, "_hash", dataset_hash(self))
        return self.file, self.tricks, self.__dict__["_hash"]

    def __deepcopy__(self, memo) -> "Dataset":
        return self  # read-only: a copied env shares it

    def __reduce__(self):
        """A whole dataset file pickles as its `reference` (rebuilt once per process, its hash checked); arrays and
        subsets pickle whole."""
        reference = self.reference()
        if reference is None:
            return _dataset_from_state, (self.__dict__.copy(),)
        return shared_dataset, (reference,)

    def __post_init__(self):
        validate_arrays(self.owner, self.dd, self.board, self.source)
        # read-only views: every env, copy and pickle of a dataset shares its arrays, so a write into one (a
        # user's or an agent's) raises instead of changing the deals under the others; a copy that must write
        # takes its own (``np.array(dataset.owner)``). The caller's own arrays keep their flags.
        for name in ("owner", "dd", "board"):
            object.__setattr__(self, name, read_only(getattr(self, name)))
        if self.tables is not None:
            object.__setattr__(self, "tables", {k: read_only(v) if k in TRICKS else v for k, v in self.tables.items()})

    def __len__(self) -> int:
        return len(self.owner)

    @property
    def boards(self) -> np.ndarray:
        """int32[N]: the ``board`` array when present, else row index + 1."""
        if self.board is not None:
            return self.board
        return read_only(np.arange(1, len(self) + 1, dtype=np.int32))

    def subset(self, rows) -> "Dataset":
        board = self.boards[rows]
        tables = None if self.tables is None else {k: (v[rows] if k in ("dd", "played") else v)
                                                   for k, v in self.tables.items()}
        return Dataset(self.owner[rows], self.dd[rows], board, self.source, self.tricks, tables)

    @property
    def played_by(self) -> dict | None:
        """{"player", "hash", "level"} of the played table, or None."""
        if self.tables is None:
            return None
        return {k.removeprefix("played_"): self.tables[k] for k in PLAYED_META}

    def with_tricks(self, tricks: str = "dd", player=None) -> "Dataset":
        """The dataset scoring with ``tricks`` ("dd" or "played"); ``player`` (a model path): the played table
        must be that checkpoint's (`check_played_by`)."""
        if tricks not in TRICKS:
            raise DatasetError(f"tricks must be one of {', '.join(TRICKS)}, got {tricks!r}")
        if tricks == "dd" and self.tables is None:
            return self
        if self.tables is None:
            raise DatasetError(f"{self.source}: no played-tricks table (make one with `bridgerl data played --data "
                               f"{self.source} --out FILE.npz`, then use that file)")
        if tricks == "played" and player is not None:
            check_played_by(self, player)
        return Dataset(self.owner, self.tables[tricks], self.board, self.source, tricks, self.tables, self.file)


def read_only(array):
    """A read-only view of ``array`` (None stays None; the array itself keeps its flags)."""
    if array is None:
        return None
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def _integer_array(name: str, value, source: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise DatasetError(f"{source}: '{name}' has dtype {array.dtype}, expected an integer type (uint8)")
    return array


def validate_arrays(owner, dd, board=None, source: str = "<arrays>") -> None:
    """Raise DatasetError naming the first problem: shapes, dtypes, 13 cards per seat, dd in 0..13, boards >= 1."""
    owner = _integer_array("owner", owner, source)
    dd = _integer_array("dd", dd, source)
    if owner.ndim != 2 or owner.shape[1] != 52:
        raise DatasetError(f"{source}: 'owner' has shape {owner.shape}, expected (N, 52)")
    if dd.ndim != 3 or dd.shape[1:] != (4, 5):
        raise DatasetError(f"{source}: 'dd' has shape {dd.shape}, expected (N, 4, 5)")
    if len(owner) != len(dd):
        raise DatasetError(f"{source}: 'owner' has {len(owner)} deals but 'dd' has {len(dd)}")
    if owner.size and (owner.min() < 0 or owner.max() > 3):
        raise DatasetError(f"{source}: 'owner' values must be seats 0-3, found {owner.min()}..{owner.max()}")
    if len(owner):
        counts = np.stack([(owner == s).sum(1) for s in range(4)], 1)
        bad = np.flatnonzero((counts != 13).any(1))
        if bad.size:
            row = int(bad[0])
            raise DatasetError(f"{source}: deal {row} has {counts[row].tolist()} cards for N, E, S, W (need 13 each);"
                               f" {bad.size} bad deal(s) in all")
    if dd.size and (dd.min() < 0 or dd.max() > 13):
        row = int(np.flatnonzero(((dd < 0) | (dd > 13)).reshape(len(dd), -1).any(1))[0])
        raise DatasetError(f"{source}: 'dd' values must be tricks 0..13, deal {row} has {dd[row].tolist()}")
    if board is not None:
        board = _integer_array("board", board, source)
        if board.shape != (len(owner),):
            raise DatasetError(f"{source}: 'board' has shape {board.shape}, expected ({len(owner)},)")
        if board.size and board.min() < 1:
            raise DatasetError(f"{source}: 'board' numbers must be 1 or more, found {board.min()}")


def make_dataset(owner, dd, board=None, source: str = "<arrays>") -> Dataset:
    """Validate and convert arrays to the canonical dtypes."""
    validate_arrays(owner, dd, board, source)
    return Dataset(np.asarray(owner, dtype=np.uint8), np.asarray(dd, dtype=np.uint8),
                   None if board is None else np.asarray(board, dtype=np.int32), source)


def load_dataset(data, tricks: str | None = None, player=None) -> Dataset:
    """A Dataset from a path, a bundled split name ('train', 'valid', 'test'), a Dataset, or a mapping of arrays.
    ``tricks`` "dd" or "played" picks the table in use (None: a Dataset as given, a file's DD table); ``player``
    (a model path) checks that the played table is that checkpoint's."""
    if isinstance(data, Dataset):
        return data if tricks is None else data.with_tricks(tricks, player)
    split = data if isinstance(data, str) and data in BUNDLED_SPLITS else None
    if split is not None:
        data = bundled_path(data)
    if isinstance(data, (str, os.PathLike)):
        path = Path(data)
        dataset = _from_mapping(read_npz(path, "dataset", DatasetError), str(path))
        object.__setattr__(dataset, "file", str(path.resolve()))  # just made, not yet shared: no second validation
        if split is not None:  # named as the user named it, not by where the package happens to be installed
            object.__setattr__(dataset, "source", split)
    elif hasattr(data, "keys"):
        dataset = _from_mapping(dict(data), "<arrays>")
    else:
        raise DatasetError(f"cannot load a dataset from {type(data).__name__}: give a path, "
                           "'train'/'valid'/'test', or arrays")
    return dataset if tricks is None else dataset.with_tricks(tricks, player)


def file_hash(path) -> str:
    """SHA-256 of a file (a model path: a run directory's model.msgpack; ``models/NAME``: `resolve_model_path`)."""
    import hashlib

    from .models import resolve_model_path

    path = resolve_model_path(path)
    path = path / "model.msgpack" if path.is_dir() else path
    if not path.exists():
        raise DatasetError(f"{path}: no such model file")
    return hashlib.sha256(path.read_bytes()).hexdigest()


class SharedSource:
    """The base of the deal sources (`UncontestedDealSource`, `CompetitiveDealSource`, `CardPlayDealSource`): read-only
    views of one dataset, so an env's copy shares its source (``copy.deepcopy``) and a pickle names the dataset file
    and its content hash instead of carrying its arrays (`shared_source` rebuilds it, once per process). A source
    over arrays or a subset pickles whole. Subclasses set ``_args``, the constructor's arguments after the
    dataset."""

    _args: tuple = ()

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        reference = self.dataset.reference()
        if reference is None:
            return _source_from_state, (type(self), self.__dict__.copy())
        return shared_source, (type(self), reference, self._args)


_SHARED: dict = {}


def shared_dataset(reference: tuple) -> Dataset:
    """The dataset of the file ``reference`` = (file, tricks, content hash), loaded once per process; a file whose
    content changed since is refused in one line."""
    if reference not in _SHARED:
        path, tricks, digest = reference
        dataset = load_dataset(path, tricks=None if tricks == "dd" else tricks)
        if dataset.reference()[2] != digest:
            raise DatasetError(f"{path}: its deals changed since this env was copied or pickled (content hash "
                               f"{digest[:12]} then, {dataset.reference()[2][:12]} now)")
        _SHARED[reference] = dataset
    return _SHARED[reference]


def shared_source(cls, reference: tuple, args: tuple):
    """The deal source ``cls(dataset, *args)`` over `shared_dataset` (``reference``), made once per process."""
    key = (cls, reference, args)
    if key not in _SHARED:
        _SHARED[key] = cls(shared_dataset(reference), *args)
    return _SHARED[key]


def _source_from_state(cls, state: dict):
    source = cls.__new__(cls)
    source.__dict__.update(state)
    return source


def _dataset_from_state(state: dict) -> Dataset:
    dataset = Dataset.__new__(Dataset)
    dataset.__dict__.update(state)
    dataset.__post_init__()  # validated again, and read-only as every dataset is
    return dataset


def dataset_hash(dataset: Dataset) -> str:
    """SHA-256 of a dataset's content: its deals, DD table and board numbers, whatever file holds them (the played
    table is recorded on its own, with its player: `Dataset.played_by`)."""
    import hashlib

    digest = hashlib.sha256()
    dd = dataset.dd if dataset.tables is None else dataset.tables["dd"]
    for array in (dataset.owner.astype(np.uint8), np.asarray(dd, np.uint8), dataset.boards.astype(np.int32)):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def check_played_by(dataset: Dataset, player) -> None:
    """Refuse, in one line, a played table made by another checkpoint than ``player``'s."""
    recorded = dataset.played_by
    if recorded is None:
        raise DatasetError(f"{dataset.source}: no played-tricks table (make one with `bridgerl data played`)")
    if recorded["hash"] != file_hash(player):
        raise DatasetError(f"{dataset.source}: its played table was made by {recorded['player']} (checkpoint "
                           f"{recorded['hash'][:12]}), not by {player} ({file_hash(player)[:12]}); make one with "
                           f"`bridgerl data played --player {player}`")


def read_npz(path: Path, what: str, error: type[Exception]) -> dict:
    """Every array of an .npz file (no pickles); a missing or unreadable file raises ``error`` in one line naming
    it and ``what`` it should be."""
    if not path.exists():
        raise error(f"{path}: no such {what} file")
    if path.is_dir():
        raise error(f"{path}: a directory, not a .npz {what} file")
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror})") from None
    if head != b"PK":  # numpy would try it as a pickle and advise allow_pickle
        from .files import describe_file

        found = describe_file(path) or "a file numpy cannot read"
        hint = "; convert it with `bridgerl data from-pbn`" if found == "a PBN file" else ""
        raise error(f"{path}: {found}, not a .npz {what} (a zip archive of numpy arrays, as `bridgerl data "
                    f"generate` writes){hint}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        reason = ("it holds object arrays, which are never read" if "allow_pickle" in str(exc)
                  else " ".join(str(exc).split()))
        raise error(f"{path}: not a readable .npz {what} ({reason})") from None


def _from_mapping(arrays: dict, source: str) -> Dataset:
    for key in ("owner", "dd"):
        if key not in arrays:
            from .files import describe_file

            found = describe_file(source) if source != "<arrays>" else None
            if found and not found.startswith(("a .npz file of arrays", "a dataset")):
                raise DatasetError(f"{source}: {found}, not a dataset (a .npz with 'owner' and 'dd')")
            names = sorted(arrays)
            raise DatasetError(f"{source}: missing array '{key}' (found {', '.join(names[:8])}"
                               f"{', ...' if len(names) > 8 else ''})")
    dataset = make_dataset(arrays["owner"], arrays["dd"], arrays.get("board"), source)
    if "played" not in arrays:
        return dataset
    played = arrays["played"]
    missing = [k for k in PLAYED_META if k not in arrays]
    if missing:
        raise DatasetError(f"{source}: a 'played' table without {', '.join(missing)} (who made it); remake it with "
                           "`bridgerl data played`")
    if np.asarray(played).shape != dataset.dd.shape:
        raise DatasetError(f"{source}: 'played' has shape {np.asarray(played).shape}, expected {dataset.dd.shape} "
                           "(the 'dd' layout)")
    try:
        validate_arrays(dataset.owner, played, None, source)
    except DatasetError as exc:
        raise DatasetError(str(exc).replace("'dd'", "'played'")) from None
    tables = {"dd": dataset.dd, "played": np.asarray(played, np.uint8),
              **{k: str(np.asarray(arrays[k]).item()) for k in PLAYED_META}}
    return Dataset(dataset.owner, dataset.dd, dataset.board, source, "dd", tables)


def atomic_savez(path: str | os.PathLike, compressed: bool = True, **arrays) -> None:
    """Write an .npz so that readers see either the old file or the complete new one."""
    atomic_write_with(path, lambda handle: (np.savez_compressed if compressed else np.savez)(handle, **arrays))


def save_dataset(path: str | os.PathLike, dataset: Dataset, **extra) -> None:
    """Atomically write ``dataset`` (plus ``extra`` arrays such as ``seed``)."""
    tables = dataset.tables
    arrays = {"owner": dataset.owner.astype(np.uint8),
              "dd": (dataset.dd if tables is None else tables["dd"]).astype(np.uint8)}
    if tables is not None:  # the played table travels with its recorded player
        arrays["played"] = tables["played"].astype(np.int8)
        arrays.update({k: np.asarray(tables[k]) for k in PLAYED_META})
    if dataset.board is not None:
        arrays["board"] = dataset.board.astype(np.int32)
    arrays.update(extra)
    atomic_savez(path, **arrays)


BUNDLED_SPLITS = ("train", "valid", "test")


def bundled_path(split: str = "train") -> Path:
    """Path of a bundled split: 'train' (20,000 deals), 'valid' (5,000 deals for choosing models and settings) or
    'test' (5,000 held-out deals, read only for final tables)."""
    if split not in BUNDLED_SPLITS:
        raise DatasetError(f"no bundled split {split!r}; choose one of {BUNDLED_SPLITS}")
    return Path(str(resources.files("bridgerl") / "data" / f"{split}.npz"))
