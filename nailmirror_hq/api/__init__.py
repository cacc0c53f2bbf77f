"""Protocol v1 over HTTP (FastAPI): `app.create_app(hq)` builds the ASGI app `nailmirror-hq serve` runs."""
