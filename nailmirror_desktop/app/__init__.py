"""The composition root (ARCHITECTURE.md §2): the one place that knows every layer and builds the services.

- `app.services`: Qt-free; the database, the style repository and the task engine with the STYLE_GENERATION
  handler registered. The CLI builds its services here.
- `app.kiosk`: the kiosk's services (app.services plus the try-on session, the frame source, the bridge's
  runner and the task executor), handed to the Qt application in ui.shell.kiosk_app.

No module here imports Qt itself (import-linter's "Qt only in ui"); the Qt objects are built by ui's classes.
"""
