"""Alembic environment: HQ runs its migrations in-process (db.migrate) with the engine in config.attributes."""

from alembic import context

from nailmirror_hq.schema import metadata

given = context.config.attributes.get("connection")
if given is not None:  # db.migrate holds a lock on this connection (PostgreSQL)
    context.configure(connection=given, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    with context.config.attributes["engine"].connect() as connection:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
