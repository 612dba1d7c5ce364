"""The Contact table (seed 000, "A Modeling Approach for AWS DynamoDB").

The seed's rules are kept: one table per domain, partition key `Id` (a UUID), sort key `Type`, and the
`ContactTypeIndex` GSI (`Type`, `Id`). Two sparse GSIs are added so that the seed's filter-over-every-item
questions become key reads whose cost grows only with the answer:
- `ContactLastNameIndex` (`LastName`, `FirstName`): only Person items carry `LastName`.
- `ContactPersonIndex` (`PersonId`, `RelationshipStart` = "<Relationship>#<YYYY-MM-DD>"): only PersonAddress items
  carry them, so "where did Bob work on 2005-01-01" reads Bob's Business links that started on or before that day.
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

PERSON = "Person"
ADDRESS = "Address"
PERSON_ADDRESS = "PersonAddress"

TYPE_INDEX = "ContactTypeIndex"
LAST_NAME_INDEX = "ContactLastNameIndex"
PERSON_INDEX = "ContactPersonIndex"

CONTACT_TABLE = TableSpec(
    "ContactTable",
    env_var="CONTACTS_TABLE_NAME",
    partition_key=KeyAttribute("Id"),
    sort_key=KeyAttribute("Type"),
    indexes=(
        IndexSpec(TYPE_INDEX, KeyAttribute("Type"), KeyAttribute("Id")),
        IndexSpec(LAST_NAME_INDEX, KeyAttribute("LastName"), KeyAttribute("FirstName")),
        IndexSpec(PERSON_INDEX, KeyAttribute("PersonId"), KeyAttribute("RelationshipStart")),
    ),
)

TABLES = (CONTACT_TABLE,)
