"""HQ's tables (SQLAlchemy Core; the same schema on SQLite and PostgreSQL). Alembic's migrations/ create them.

Times are UTC text (clock.to_text), JSON bodies are text: both engines store and compare them the same way.
The feed (catalog_change) is append-only per channel; channel.head_seq is the single writer's counter (feed.py).
channel_entity is the live state the feed leads to (what a snapshot lists), kept in the same transaction.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# key/value facts of this HQ: "epoch" (the feed's history, changed by a restore)
hq_meta = Table(
    "hq_meta", metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

# A channel's code; a channel's canary feed (rollouts.py) is "~" + its code, so feed columns hold 41 characters.
channel = Table(
    "channel", metadata,
    Column("code", String(48), primary_key=True),
    Column("head_seq", BigInteger, nullable=False, server_default="0"),
    Column("min_seq", BigInteger, nullable=False, server_default="0"),  # cursors below it get 410 compacted
    Column("created_at", String(24), nullable=False),
)

store = Table(
    "store", metadata,
    Column("id", String(64), primary_key=True),  # st_<code>
    Column("name", Text, nullable=False),
    Column("channel", String(40), ForeignKey("channel.code"), nullable=False),
    Column("status", String(16), nullable=False),  # ACTIVE | REVOKED
    Column("inbox_seq", BigInteger, nullable=False, server_default="0"),
    Column("created_at", String(24), nullable=False),
    # An IANA name (0011): the store's calendar day on its kiosks; sent in hello (stores.store_time_zone).
    Column("time_zone", String(64), nullable=False, server_default="Asia/Shanghai"),
)

enroll_code = Table(
    "enroll_code", metadata,
    Column("code_sha256", String(64), primary_key=True),  # the code itself is shown once, never stored
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("created_at", String(24), nullable=False),
    Column("expires_at", String(24), nullable=False),
    Column("used_at", String(24)),
    Column("replaces_kiosk_id", String(64)),  # a replacement PC's code: its use revokes this kiosk (fleet.py)
)

store_token = Table(
    "store_token", metadata,
    Column("token_sha256", String(64), primary_key=True),  # the token is shown once, never stored
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("kiosk_id", String(64), nullable=False, unique=True),
    Column("kiosk_name", Text, nullable=False),
    Column("app_version", Text, nullable=False),
    Column("created_at", String(24), nullable=False),
    Column("last_seen_at", String(24)),
    Column("revoked_at", String(24)),
    # The feed this kiosk's cursor belongs to (set at enrollment and by each snapshot): a cursor read on
    # another channel, or in an older feed format, answers 410 channel_changed / protocol_upgraded.
    Column("feed_channel", String(48)),
    Column("feed_format", Integer),
    # The last sync report this kiosk sent (nailmirror_protocol.shapes.SyncReport, as JSON) and when.
    Column("sync_report", Text),
    Column("sync_report_at", String(24)),
    # When kiosk_name was given (enrollment, a rename); NULL for a kiosk enrolled before names were kept: its
    # next hello names it <store>-<n> (fleet.py).
    Column("named_at", String(24)),
)

# A kiosk's token before its last rotation: still accepted until valid_until, so a kiosk that rotated but
# never saw the answer (or has not stored the new token yet) keeps syncing.
retired_token = Table(
    "retired_token", metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("kiosk_id", String(64), ForeignKey("store_token.kiosk_id"), nullable=False),
    Column("valid_until", String(24), nullable=False),
)

category = Table(
    "category", metadata,
    Column("code", String(40), primary_key=True),
    Column("name_zh", Text, nullable=False),
    Column("name_en", Text, nullable=False),
    Column("sort_order", Integer, nullable=False, server_default="0"),
    Column("version", Integer, nullable=False),
)

tag = Table(
    "tag", metadata,
    Column("code", String(40), primary_key=True),
    Column("name_zh", Text, nullable=False),
    Column("name_en", Text, nullable=False),
    Column("version", Integer, nullable=False),
)

# status: UNPUBLISHED (imported, never sent) | PUBLISHED | OFF_SHELF | WITHDRAWN (taken down: a feed delete)
style = Table(
    "style", metadata,
    Column("id", String(36), primary_key=True),
    Column("style_code", String(16), nullable=False, unique=True),
    Column("version", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("body", Text, nullable=False),  # the StyleBody JSON of the current version
    Column("created_at", String(24), nullable=False),
    Column("updated_at", String(24), nullable=False),
)

# The channels a style is published to; none means every channel (also channels added later).
style_channel = Table(
    "style_channel", metadata,
    Column("style_id", String(36), ForeignKey("style.id"), nullable=False),
    Column("channel", String(40), ForeignKey("channel.code"), nullable=False),
    PrimaryKeyConstraint("style_id", "channel"),
)

blob = Table(
    "blob", metadata,
    Column("sha256", String(64), primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("format", String(8), nullable=False),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("created_at", String(24), nullable=False),
)

catalog_change = Table(
    "catalog_change", metadata,
    Column("channel", String(48), ForeignKey("channel.code"), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("type", String(16), nullable=False),
    Column("op", String(8), nullable=False),
    Column("entity_id", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("body", Text, nullable=False),  # the Change JSON without "seq"
    Column("created_at", String(24), nullable=False),
    PrimaryKeyConstraint("channel", "seq"),  # a page is one B-tree range scan: flat in the table's size
)

channel_entity = Table(
    "channel_entity", metadata,
    Column("channel", String(48), ForeignKey("channel.code"), nullable=False),
    Column("type", String(16), nullable=False),
    Column("entity_id", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("body", Text, nullable=False),
    Column("seq", BigInteger, nullable=False),
    PrimaryKeyConstraint("channel", "type", "entity_id"),
)

draft = Table(
    "draft", metadata,
    Column("id", String(36), primary_key=True),
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("created_at", String(24), nullable=False),
)

draft_revision = Table(
    "draft_revision", metadata,
    Column("draft_id", String(36), ForeignKey("draft.id"), nullable=False),
    Column("rev", Integer, nullable=False),
    Column("kiosk_id", String(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("body_sha256", String(64), nullable=False),
    Column("state", String(16), nullable=False),  # PENDING_REVIEW | APPROVED | REJECTED | WITHDRAWN
    Column("received_at", String(24), nullable=False),
    Column("decided_at", String(24)),
    Column("reviewer", Text),
    Column("reason", Text),
    PrimaryKeyConstraint("draft_id", "rev"),
)
Index("draft_revision_by_state", draft_revision.c.state, draft_revision.c.received_at)

store_event = Table(
    "store_event", metadata,
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("type", String(32), nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", String(24), nullable=False),
    PrimaryKeyConstraint("store_id", "seq"),
)

reviewer = Table(
    "reviewer", metadata,
    Column("name", String(80), primary_key=True),
    Column("password_hash", Text, nullable=False),  # argon2id
    Column("created_at", String(24), nullable=False),
    Column("disabled_at", String(24)),
    # What the person may do (roles.py, migration 0009): accounts older than roles became ops_admin.
    Column("role", String(32), nullable=False),
    Column("display_name", Text),  # how kiosks and the audit log name them ("王丽"); the login name if unset
)

audit_log = Table(
    "audit_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", String(24), nullable=False),
    Column("actor", Text, nullable=False),
    Column("action", String(40), nullable=False),
    Column("entity_type", String(16), nullable=False),
    Column("entity_id", String(64), nullable=False),
    Column("detail", Text, nullable=False),
)
# The audit page's filters (web/audit_page.py): by the thing acted on (a style, a draft, a store) and by person.
Index("audit_log_by_entity", audit_log.c.entity_type, audit_log.c.entity_id, audit_log.c.id)
Index("audit_log_by_actor", audit_log.c.actor, audit_log.c.id)

# A reviewer's signed-in browser session (the review page). The cookie holds a random id; HQ keeps its sha256
# and the session's CSRF token, so a copy of the database signs nobody in, and disabling a reviewer ends theirs.
web_session = Table(
    "web_session", metadata,
    Column("id_sha256", String(64), primary_key=True),
    Column("reviewer", String(80), ForeignKey("reviewer.name"), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", String(24), nullable=False),
    Column("expires_at", String(24), nullable=False),
)

# Credits (issue 14, nailmirror_hq/credits.py). A grant is HQ's decision (also a credits.grant inbox event);
# credit_ledger_entry holds the kiosks' settled ledger entries as they uploaded them (immutable, keyed by the
# kiosk's entry id), so HQ's view of a store's balance is grants - confirmed charges.
credit_grant = Table(
    "credit_grant", metadata,
    Column("grant_id", String(40), primary_key=True),
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("reason", Text, nullable=False),
    Column("actor", Text, nullable=False),
    Column("inbox_seq", BigInteger),  # NULL only for a grant learned back from a kiosk (no event of this HQ)
    Column("created_at", String(24), nullable=False),
    # The one kiosk of the store that applies it (migration 0006); NULL: granted before grants were addressed.
    Column("kiosk_id", String(64)),
    # The kiosk ledger entry HQ learned this grant back from, after a restore had lost it (credits.put_entry).
    Column("learned_from_entry", String(64)),
    # HQ's signature of (grant_id, store_id, amount) (keys.py, migration 0008): sent with the grant's inbox event
    # and checked when a kiosk's entry brings a grant back that a restore lost.
    Column("signature", String(100)),
)
Index("credit_grant_by_store", credit_grant.c.store_id, credit_grant.c.created_at)

credit_ledger_entry = Table(
    "credit_ledger_entry", metadata,
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("entry_id", String(64), nullable=False),
    Column("kiosk_id", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # GRANT | CHARGE
    Column("status", String(12), nullable=False),  # CONFIRMED | REFUNDED
    Column("amount", BigInteger, nullable=False),
    Column("confirmed_amount", BigInteger, nullable=False),
    Column("funded", Integer, nullable=False),  # 1: counted against the balance
    Column("grant_id", String(200)),
    Column("task_no", Text),
    Column("created_at", String(24), nullable=False),  # the kiosk's time of the entry
    Column("settled_at", String(24)),
    Column("body", Text, nullable=False),  # the LedgerEntryUpload JSON as received
    Column("body_sha256", String(64), nullable=False),  # canonical body hash: replay 200, different 409
    Column("received_at", String(24), nullable=False),
    # An entry re-sent under a new id after a 409 names the id it replaces; the replaced row is superseded_by it
    # and no longer counted (credits.put_entry, migration 0006).
    Column("replaces", String(64)),
    Column("superseded_by", String(64)),
    # A GRANT entry naming an HQ grant id HQ does not hold and cannot verify (no valid signature, migration 0008):
    # PARKED for an operator and never counted; ACCEPTED (learned as an HQ grant) or REJECTED by one.
    Column("grant_parked", String(8)),
    PrimaryKeyConstraint("store_id", "entry_id"),
)

# HQ's one ed25519 key pair (keys.py): the private half sealed with the config file's key, never stored plain.
hq_signing_key = Table(
    "hq_signing_key", metadata,
    Column("key_id", String(16), primary_key=True),
    Column("algorithm", String(16), nullable=False),
    Column("public_key", String(64), nullable=False),
    Column("private_sealed", Text, nullable=False),
    Column("created_at", String(24), nullable=False),
)

# HQ moved from old_key_id to new_key_id (keys.rotate, migration 0017): signed by the old key over
# model_release.rotation_payload, sent to kiosks in hello and enrollment so a pinned kiosk follows.
hq_key_rotation = Table(
    "hq_key_rotation", metadata,
    Column("old_key_id", String(16), ForeignKey("hq_signing_key.key_id"), primary_key=True),
    Column("new_key_id", String(16), ForeignKey("hq_signing_key.key_id"), nullable=False),
    Column("rotated_at", String(24), nullable=False),
    Column("signature", Text, nullable=False),
)


# An operator's request to one kiosk (issue #25 §8, fleet.py): the kiosk gets the pending ones in hello, does
# each once and answers in its sync report (outcome DONE or FAILED, with a one-line detail).
fleet_request = Table(
    "fleet_request", metadata,
    Column("id", String(40), primary_key=True),  # fr_<hex>
    Column("kiosk_id", String(64), ForeignKey("store_token.kiosk_id"), nullable=False),
    Column("kind", String(40), nullable=False),  # nailmirror_protocol.shapes.FLEET_REQUEST_KINDS
    Column("asked_by", Text, nullable=False),
    Column("asked_at", String(24), nullable=False),
    Column("sent_at", String(24)),  # the first hello that carried it
    Column("outcome", String(16)),
    Column("detail", Text),
    Column("done_at", String(24)),
    Index("fleet_request_by_kiosk", "kiosk_id", "asked_at"),
)
# Staged publishing (rollouts.py, migration 0012). A channel's canary stores see a publish first, through the
# channel's canary feed ("~" + code); the rest of the channel sees it when the rollout widens.
channel_canary = Table(
    "channel_canary", metadata,
    Column("channel", String(40), ForeignKey("channel.code"), nullable=False),
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("added_at", String(24), nullable=False),
    PrimaryKeyConstraint("channel", "store_id"),
)

# One publish of a subject (kind "style": a style's version; kind "model": a model release, a later issue) and
# how far it has gone. stage: CANARY (canary feeds only) | WIDENED (every store) | ROLLED_BACK (its previous
# version is current again) | SUPERSEDED (a later change of the subject went to every store).
rollout = Table(
    "rollout", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("subject_id", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("body", Text, nullable=False),  # what was published (a StyleBody JSON)
    Column("previous_version", Integer),  # the version every store saw before; NULL for a first publish
    Column("previous_body", Text),
    Column("held", Text, nullable=False),  # JSON list of the channels whose canary feed alone carries it
    Column("stage", String(16), nullable=False),
    Column("created_at", String(24), nullable=False),
    Column("created_by", Text, nullable=False),
    Column("widened_at", String(24)),
    Column("widened_by", Text),
    Column("ended_at", String(24)),
    Column("ended_by", Text),
)
Index("rollout_by_subject", rollout.c.kind, rollout.c.subject_id, rollout.c.id)
Index("rollout_by_stage", rollout.c.stage, rollout.c.created_at)
# Consented nail captures (issue #26, nailmirror_hq/captures.py): kept apart from the catalog's blobs (their own
# store, captures/ under the data directory or the bucket), read only through captures.can_read_captures, every
# read audited. A withdrawal deletes the capture and its dataset rows and is kept (without the image) so a kiosk
# that still holds a copy is told to delete it; retention deletes captures older than the chain's age.
capture = Table(
    "capture", metadata,
    Column("code", String(16), primary_key=True),  # shown to the customer (XXXX-XXXX), her key to withdraw
    Column("store_id", String(64), ForeignKey("store.id"), nullable=False),
    Column("kiosk_id", String(64), nullable=False),
    Column("image_sha256", String(64), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("taken_at", String(24), nullable=False),  # the kiosk's time of the consent tap
    Column("received_at", String(24), nullable=False),
    Column("consent_by", String(16), nullable=False),  # customer | staff
    Column("consent_at", String(24), nullable=False),
    Column("consent_text_version", String(40), nullable=False),
    Column("model_version", String(80), nullable=False),
    Column("facts", Text, nullable=False),  # landmarks, nail quads, camera and light facts (JSON)
)
Index("capture_by_received", capture.c.received_at)

capture_withdrawal = Table(
    "capture_withdrawal", metadata,
    Column("code", String(16), primary_key=True),
    Column("withdrawn_at", String(24), nullable=False),
    Column("actor", Text, nullable=False),  # a kiosk id or an HQ operator
    Column("held", Integer, nullable=False),  # 1: HQ held the capture and deleted it
    Column("datasets", Text, nullable=False),  # JSON list of the datasets that listed it (their rows deleted)
)

# The datasets a capture is listed in (a training's inputs, issue #26 part 2); a withdrawal deletes the rows.
capture_dataset = Table(
    "capture_dataset", metadata,
    Column("dataset", String(80), nullable=False),
    Column("code", String(16), ForeignKey("capture.code"), nullable=False),
    Column("added_at", String(24), nullable=False),
    Column("label_version", Integer),  # the label version a labels dataset froze (NULL: a legacy dataset's row)
    PrimaryKeyConstraint("dataset", "code"),
)

# Model work (issue #27 §3–§4, migration 0016). A model_job is one train or evaluate run on HQ's durable queue
# (model_jobs.py): claimed by a conditional UPDATE, kept alive by its heartbeat, requeued or failed when its
# worker died. state: queued | running | done | failed.
model_job = Table(
    "model_job", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # train | evaluate
    Column("args", Text, nullable=False),  # JSON
    Column("state", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("worker", String(120)),  # the claim's token: only its holder may beat, finish or fail it
    Column("created_at", String(24), nullable=False),
    Column("created_by", Text, nullable=False),
    Column("started_at", String(24)),
    Column("heartbeat_at", String(24)),
    Column("finished_at", String(24)),
    Column("result", Text),  # JSON, when done
    Column("log_tail", Text),  # the last lines the job's programs wrote
    Column("error", Text),  # one line, when failed
    Index("model_job_by_state", "state", "id"),
)

# A nail model HQ trained (model_registry.py): its ONNX in the catalog's blob store under its sha256 (what a kiosk
# fetches), and everything a rerun needs to make the same bytes. state: candidate | published | withdrawn.
nail_model = Table(
    "nail_model", metadata,
    Column("id", String(20), primary_key=True),  # m-<first 12 hex of sha256>
    Column("name", String(40), nullable=False),  # nail_segmenter
    Column("slot", String(16), nullable=False),  # nailmirror_protocol.model_release.SLOTS
    Column("sha256", String(64), nullable=False, unique=True),
    Column("size", BigInteger, nullable=False),
    Column("inputs", Text, nullable=False),  # JSON list of TensorSpec
    Column("outputs", Text, nullable=False),
    Column("threshold", Float),
    Column("recipe", Text, nullable=False),  # JSON: epochs, seed, inner, trainer
    Column("dataset", String(80), nullable=False),
    Column("dataset_digest", String(64), nullable=False),
    Column("base_data_digest", String(64), nullable=False),
    Column("seed", Integer, nullable=False),
    Column("command", Text, nullable=False),  # the trainer's command line, work-folder paths by name
    Column("job_id", Integer),
    Column("created_at", String(24), nullable=False),
    Column("created_by", Text, nullable=False),
    Column("state", String(16), nullable=False),
    Column("channels", Text, nullable=False, server_default="[]"),  # JSON: the channels whose slot it fills now
)

# What the gate said of a model against the current one on the evaluation set (model_gate.py).
gate_report = Table(
    "gate_report", metadata,
    Column("id", String(24), primary_key=True),  # g-<hex>
    Column("model_id", String(20), ForeignKey("nail_model.id"), nullable=False),
    Column("baseline", String(40), nullable=False),  # a model id, or "bundled-<sha12>"
    Column("evaluation_set", Text, nullable=False),  # JSON: photos, digest, label versions
    Column("metrics", Text, nullable=False),  # JSON: candidate and baseline, overall and per bucket
    Column("noise", Text, nullable=False),  # JSON: how it was measured and its size
    Column("verdict", String(8), nullable=False),  # pass | fail
    Column("reasons", Text, nullable=False),  # JSON list of codes with figures
    Column("created_at", String(24), nullable=False),
    Column("created_by", Text, nullable=False),
    Index("gate_report_by_model", "model_id", "created_at"),
)

# Label versions (issue #27 §1, labels.py): one capture's whole nail mask as a labeller left it, append-only.
# The mask is a 0/255 greyscale PNG in the capture store (never in /v1/blobs), NULL for a skip or a rejection.
label_version = Table(
    "label_version", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(16), ForeignKey("capture.code"), nullable=False),
    Column("version", Integer, nullable=False),  # 1, 2, … per capture
    Column("decision", String(16), nullable=False),  # accepted | skipped | rejected
    Column("reason", String(16)),  # a rejection's: not_usable | privacy
    Column("mask_sha256", String(64)),
    Column("source", String(16), nullable=False),  # what the labeller started from: kiosk | label | blank
    Column("source_version", Integer),  # the label_version.id started from (source = label)
    Column("skin_tone", String(8)),  # I-II | III-IV | V-VI
    Column("nail_kind", String(16)),  # bare | polished | long | decorated
    Column("labeller", Text, nullable=False),
    Column("created_at", String(24), nullable=False),
    UniqueConstraint("code", "version", name="label_version_per_capture"),
)

# A named, frozen list of label versions (datasets.py; its members are capture_dataset rows). `lost` counts the
# members a withdrawal or retention took away since; `legacy` marks a #26 dataset of captures without labels.
label_dataset = Table(
    "label_dataset", metadata,
    Column("name", String(80), primary_key=True),
    Column("created_at", String(24), nullable=False),
    Column("created_by", Text, nullable=False),
    Column("members", Integer, nullable=False),
    Column("lost", Integer, nullable=False, server_default="0"),
    Column("excluded", Integer, nullable=False, server_default="0"),  # legacy rows in the evaluation split
    Column("legacy", Integer, nullable=False, server_default="0"),
)
