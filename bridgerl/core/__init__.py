"""The rules core: cards, calls, auction, contract, scoring, IMPs, par, hand features, datasets.

Every environment uses this one copy of the rules; see `docs/conventions.md` for the index conventions.
"""

from .auction import Auction, AuctionOverError, IllegalCallError
from .board import VULS, dealer_for_board, is_vulnerable, parse_vul, vul_for_board
from .calls import (BID_OFFSET, DOUBLE, NUM_BIDS, NUM_CALLS, NUM_UNCONTESTED_ACTIONS, PASS, REDOUBLE, bid_index,
                    bid_name, call_name, call_to_uncontested, parse_call, uncontested_to_call)
from .cards import (NUM_CARDS, RANKS, SEATS, STRAINS, SUITS, card_name, hand_mask, hand_text, owner_to_pbn, parse_card,
                    parse_seat, parse_strain, partner, pbn_to_owner, side_of)
from .contract import DOUBLED, REDOUBLED, UNDOUBLED, Contract
from .dataset import Dataset, DatasetError, bundled_path, load_dataset, make_dataset, save_dataset
from .hand import hcp, is_balanced, is_balanced_lengths, suit_lengths
from .imps import IMP_EDGES, imps
from .par import constructive_par, constructive_par_contract, constructive_scores, par_contracts, par_score
from .scoring import SCORE_TABLE, score

__all__ = [name for name in dir() if not name.startswith("_")]
