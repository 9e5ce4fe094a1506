"""Moved by issue #52: the ISSN and SSN networks are `bridgerl.agents.learned.simulation`, their losses
(``policy_loss``, ``ssn_loss``) `bridgerl.training.simulation`. This alias re-exports the agents' names for one
release (`docs/architecture.md`)."""

from bridgerl.agents.learned.simulation import (DEFAULT_ISSN, DEFAULT_SSN, DEFAULT_T, ISSN_FORMAT, SSN_FEATURES,
                                                SSN_FORMAT, TARGETS, PolicyAgent, PolicyModel, SolverModel, build_issn,
                                                build_ssn, history_inputs, legal_cards, normalised_weights,
                                                policy_log_probs, positions_issn_inputs, positions_ssn_inputs,
                                                ssn_encode, ssn_values, worlds_ssn_inputs)

__all__ = ["DEFAULT_ISSN", "DEFAULT_SSN", "DEFAULT_T", "ISSN_FORMAT", "SSN_FEATURES", "SSN_FORMAT", "TARGETS",
           "PolicyAgent", "PolicyModel", "SolverModel", "build_issn", "build_ssn", "history_inputs", "legal_cards",
           "normalised_weights", "policy_log_probs", "positions_issn_inputs", "positions_ssn_inputs", "ssn_encode",
           "ssn_values", "worlds_ssn_inputs"]
