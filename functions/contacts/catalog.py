"""Contacts: its entities and access patterns, declared once. docs/contacts.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=(
        "entity",
        "`Id` (PK)",
        "`Type` (SK)",
        "other attributes",
        "ContactTypeIndex (`Type`, `Id`)",
        "ContactLastNameIndex (`LastName`, `FirstName`)",
        "ContactPersonIndex (`PersonId`, `RelationshipStart`)",
    ),
    rows=(
        (
            "Person",
            "person UUID",
            "`Person`",
            "`FirstName`, `LastName`",
            "`Person`, person UUID",
            "last name, first name",
            "—",
        ),
        (
            "Address",
            "address UUID",
            "`Address`",
            "`StreetAddress`, `City`, `State`, `ZipCode`",
            "`Address`, address UUID",
            "—",
            "—",
        ),
        (
            "PersonAddress (link)",
            "link UUID",
            "`PersonAddress`",
            (
                "`PersonId`, `AddressId`, `Relationship` (`Business`|`Residential`), `StartTimestampUTC`, "
                "`EndTimestampUTC`?"
            ),
            "`PersonAddress`, link UUID",
            "—",
            "person UUID, `<Relationship>#<YYYY-MM-DD start>`",
        ),
    ),
)

COLUMNS: Columns = columns(who=False, key_condition="key condition (+ filter)")

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a person (admin)",
        route="`POST /contacts/persons`",
        who=None,
        source="table",
        key_condition="PutItem, `attribute_not_exists(Id)`",
        repository_method="`put_person`",
        tests="functional `test_admin_creates_person_address_and_link`, e2e `test_admin_writes_and_reads_back`",
    ),
    AccessPattern(
        name="all persons",
        route="`GET /contacts/persons`",
        who=None,
        source="ContactTypeIndex",
        key_condition="`Type = Person`",
        repository_method="`list_persons`",
        tests="`test_all_persons_and_by_last_name`, `test_pages_cover_every_person_once`",
    ),
    AccessPattern(
        name="persons by last name",
        route="`GET /contacts/persons?lastName=Smith`",
        who=None,
        source="ContactLastNameIndex",
        key_condition="`LastName = :ln`",
        repository_method="`list_persons_by_last_name`",
        tests="`test_all_persons_and_by_last_name`, `test_cursor_is_bound_to_its_list_and_signed`",
    ),
    AccessPattern(
        name="any item(s) by Id",
        route="`GET /contacts/items/{id}`",
        who=None,
        source="table",
        key_condition="`Id = :id`",
        repository_method="`items_with_id`",
        tests="`test_any_item_by_id`, `test_unknown_item_is_404`",
    ),
    AccessPattern(
        name="create an address (admin)",
        route="`POST /contacts/addresses`",
        who=None,
        source="table",
        key_condition="PutItem, `attribute_not_exists(Id)`",
        repository_method="`put_address`",
        tests="`test_admin_creates_person_address_and_link`",
    ),
    AccessPattern(
        name="link person and address (admin)",
        route="`POST /contacts/persons/{personId}/addresses`",
        who=None,
        source="table",
        key_condition="TransactWriteItems: ConditionCheck person exists, ConditionCheck address exists, Put link",
        repository_method="`put_link`",
        tests="`test_link_to_unknown_person_or_address_is_404_and_writes_nothing`",
    ),
    AccessPattern(
        name="end a link (admin)",
        route="`PATCH /contacts/person-addresses/{linkId}`",
        who=None,
        source="table",
        key_condition="UpdateItem if exists ∧ start ≤ end ∧ (no end ∨ same end)",
        repository_method="`end_link`",
        tests="`test_end_link_is_idempotent_and_guarded`, `test_end_link_before_start_or_unknown`",
    ),
    AccessPattern(
        name="a person's address history",
        route="`GET /contacts/persons/{personId}/addresses`",
        who=None,
        source="ContactPersonIndex",
        key_condition="`PersonId = :p`",
        repository_method="`list_links_of` + `addresses_by_id` (BatchGetItem)",
        tests="`test_all_relationships_on_a_day_and_history`",
    ),
    AccessPattern(
        name="…of one relationship on a day (\"where did Bob work on 1/1/2005\")",
        route="`…/addresses?relationship=Business&on=2005-01-01`",
        who=None,
        source="ContactPersonIndex",
        key_condition=(
            "`PersonId = :p AND RelationshipStart BETWEEN \"Business#\" AND \"Business#2005-01-01\"` + filter `no "
            "EndTimestampUTC OR EndTimestampUTC ≥ day`"
        ),
        repository_method="`list_links_of`",
        tests=(
            "`test_where_bob_worked_on_2005_01_01`, `test_address_lookup_reads_only_that_persons_links`, e2e "
            "`test_seed_questions`"
        ),
    ),
    AccessPattern(
        name="…current (\"where does Bob live now\")",
        route="`…/addresses?relationship=Residential&current=true`",
        who=None,
        source="ContactPersonIndex",
        key_condition="as above with today (UTC)",
        repository_method="`list_links_of`",
        tests="`test_where_bob_lives_now`, e2e `test_seed_questions`",
    ),
    AccessPattern(
        name="…any relationship on a day",
        route="`…/addresses?on=2010-06-01`",
        who=None,
        source="ContactPersonIndex",
        key_condition="`PersonId = :p` + filter `start ≤ day AND (no end OR end ≥ day)`",
        repository_method="`list_links_of`",
        tests="`test_all_relationships_on_a_day_and_history`, `test_address_history_pages_with_filter`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/contacts.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "id": "1302c80a-7c61-4920-93a4-23c44c931945",
    "personId": "1302c80a-7c61-4920-93a4-23c44c931945",
    "linkId": "eca6da1c-0c94-4b3e-8531-f4f9481330ef",
}

# The seed's user (seeds/contacts.py), whom the explorer runs the patterns as (`make token USER=alice`):
# any signed-in caller reads the seed's persons.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_contacts_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='writes need group `admin`',
        enforced_by='route middleware (`functions/shared/auth.py`)',
        refusal='403 `FORBIDDEN`, nothing written',
        tests=(
            API + 'test_writes_need_admin_and_write_nothing_otherwise',
        ),
    ),
    Rule(
        rule='a link needs an existing person and address',
        enforced_by="the transaction's ConditionChecks",
        refusal='404 `PERSON_NOT_FOUND` / `ADDRESS_NOT_FOUND`, nothing written',
        tests=(
            API + 'test_link_to_unknown_person_or_address_is_404_and_writes_nothing',
        ),
    ),
    Rule(
        rule='`endDate ≥ startDate`',
        enforced_by='a service check before the write (create) / UpdateItem condition (end)',
        refusal=(
            'create: 400 `VALIDATION_FAILED` naming `body.startDate` and `body.endDate`; end: 409 `END_BEFORE_START` '
            'naming `body.endDate` (the stored start refuses a well-formed request)'
        ),
        tests=(
            API + 'test_invalid_link_is_400',
            API + 'test_end_link_before_start_or_unknown',
        ),
    ),
    Rule(
        rule='ending an ended link again',
        enforced_by='UpdateItem condition',
        refusal='same day: 200 (a retry changes nothing); another day: 409 `LINK_ALREADY_ENDED`',
        tests=(
            API + 'test_end_link_is_idempotent_and_guarded',
        ),
    ),
    Rule(
        rule='dates are `YYYY-MM-DD`',
        enforced_by='`functions/shared/models.py`',
        refusal='400 naming the field',
        tests=(
            API + 'test_invalid_link_is_400',
            API + 'test_invalid_address_query_is_400',
        ),
    ),
    Rule(
        rule='a retried create makes nothing new',
        enforced_by=(
            '`Idempotency-Key` header on the three POSTs (Powertools idempotency, a conditional put in the idempotency '
            'table)'
        ),
        refusal='the first answer again; the same key with another body: 409 `IDEMPOTENCY_KEY_REUSED`',
        tests=(
            API + 'test_retry_with_the_same_idempotency_key_creates_once',
            API + 'test_same_key_with_another_body_is_409_and_creates_nothing',
        ),
    ),
)
