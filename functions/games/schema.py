"""The Games tables as data: the CDK builds them from here, the functional tests and the local runtime too.

The seed's N:M model as drawn: `UserGames` keyed by (`UserId`, `GameId`) answers "the games of a user", and
`GameUsersIndex`, the same keys switched, answers "the players of a game". The seed has no game entity; a player
limit needs one, so a game's definition and its live player count live in their own `Games` table (`GameId`),
one partition per game, changed in the same transaction as the membership (docs/games.md says why not an item
of UserGames).

Key attributes keep the seed's PascalCase names (`UserId`, `GameId`); other attributes are camelCase like the API.
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

GAME_USERS_INDEX = "GameUsersIndex"

GAMES_TABLE = TableSpec("GamesTable", partition_key=KeyAttribute("GameId"))

USER_GAMES_TABLE = TableSpec(
    "UserGamesTable",
    partition_key=KeyAttribute("UserId"),
    sort_key=KeyAttribute("GameId"),
    indexes=(IndexSpec(GAME_USERS_INDEX, KeyAttribute("GameId"), KeyAttribute("UserId")),),
)

TABLES = (GAMES_TABLE, USER_GAMES_TABLE)
