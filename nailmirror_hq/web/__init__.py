"""The review web page for HQ reviewers: server-rendered Jinja2 + htmx (vendored in static/), zh_CN and English
through gettext (Babel), argon2 login, a session cookie and a CSRF token on every form. Plain form posts work
without JavaScript; htmx only swaps the changed row in place."""
