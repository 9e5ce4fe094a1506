"""Double-dummy tables through endplay (DDS), and the one place where endplay's orders meet ours.

endplay orders strains spades=0, hearts=1, diamonds=2, clubs=3, NT=4 (``Denom``), the reverse of ours for suits;
its ``Vul`` is none=0, both=1, ns=2, ew=3. Seats agree (N=0, E=1, S=2, W=3).
Our DD table: uint8[4 declarer seats, 5 strains C, D, H, S, NT] of tricks for that declarer, led into from the left.
"""

from __future__ import annotations

import numpy as np

from .board import parse_vul
from .cards import owner_to_pbn

DDS_MAX_TABLES = 40
"""Deals per DDS ``CalcAllTables`` call with all five strains (DDS's MAXNOOFTABLES)."""


def strain_to_endplay(strain: int) -> int:
    """Our strain (C=0 ... S=3, NT=4) -> endplay ``Denom`` value (S=0 ... C=3, NT=4). Its own inverse."""
    return 3 - strain if strain < 4 else 4


strain_from_endplay = strain_to_endplay


def vul_to_endplay(vul: str):
    from endplay.types import Vul

    return {"none": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "both": Vul.both}[parse_vul(vul)]


def owner_to_deal(owner: np.ndarray):
    """endplay ``Deal`` for an owner array."""
    from endplay.types import Deal

    return Deal(owner_to_pbn(owner))


def dd_from_endplay(table) -> np.ndarray:
    """uint8[4, 5] in our order from an endplay ``DDTable``."""
    raw = np.array(table._data.resTable, dtype=np.uint8)  # [endplay denom, seat]
    return np.ascontiguousarray(raw[[3, 2, 1, 0, 4], :].T)


def dd_to_endplay(dd: np.ndarray):
    """endplay ``DDTable`` holding our uint8[4, 5] table."""
    import endplay._dds as _dds
    from endplay.dds.ddtable import DDTable

    dd = np.asarray(dd)
    if dd.shape != (4, 5):
        raise ValueError(f"a DD table has shape (4, 5), got {dd.shape}")
    raw = _dds.ddTableResults()
    for strain in range(5):
        for seat in range(4):
            raw.resTable[strain_to_endplay(strain)][seat] = int(dd[seat, strain])
    return DDTable(raw)


def solve_dd_tables(owners: np.ndarray) -> np.ndarray:
    """uint8[N, 4, 5] DD tables for owner arrays uint8[N, 52], batched through ``endplay.dds.calc_all_tables``.

    DDS spreads each batch over its own threads (all cores by default)."""
    from endplay.dds import calc_all_tables

    owners = np.asarray(owners)
    if owners.ndim == 1:
        owners = owners[None]
    result = np.empty((len(owners), 4, 5), dtype=np.uint8)
    for start in range(0, len(owners), DDS_MAX_TABLES):
        deals = [owner_to_deal(o) for o in owners[start:start + DDS_MAX_TABLES]]
        for i, table in enumerate(calc_all_tables(deals)):
            result[start + i] = dd_from_endplay(table)
    return result


def set_dds_threads(threads: int) -> None:
    """Number of threads DDS uses in this process (0 = all cores)."""
    import endplay._dds as _dds

    _dds.SetMaxThreads(int(threads))


def solve_dd_table(owner: np.ndarray) -> np.ndarray:
    """uint8[4, 5] DD table of one deal."""
    return solve_dd_tables(np.asarray(owner)[None])[0]

