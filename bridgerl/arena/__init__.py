"""The table engine (issue #52): agent specs and their loading, seating two pairs, playing boards one at a time and
batched (lockstep), card-play matches, resumable JSON-lines results files, and what a table says about a call.

Above the agents and envs, below evaluation, training, the web page and the command line (`docs/architecture.md`):

- `specs`: agent, play and game specs (`rules`, `bid=sayc,play=models/card-player`, `module:attr`) and ``Pair``;
- `game`: two pairs at two tables over dataset rows (`evaluate game`), bidding and play-out, the match file, PBN;
- `play`: a declaring agent against a defending agent (`evaluate play`), ``agent_seed``;
- `lockstep`: many boards' agents acting in one batched call;
- `jsonlines`: the results files every long job resumes from;
- `explain`: what a call shows under its system and what a card player considered;
- `protocol`, `table_manager`, `seat_client`: the computer-bridge table protocol (version 18), our manager and our
  seat (`bridgerl table serve | join`, `docs/table.md`).
"""
