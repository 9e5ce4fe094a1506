"""The local web view of bridgerl (`bridgerl serve`): needs the ``web`` extra (FastAPI and uvicorn)."""
