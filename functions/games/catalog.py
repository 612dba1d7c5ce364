"""Games: its entities and access patterns, declared once. docs/games.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table / index", "item", "partition key", "sort key", "other attributes"),
    rows=(
        (
            "Games",
            "game",
            "`GameId`",
            "—",
            (
                "`name`, `maxPlayers` (1–1000), `playerCount` (the memberships of the game, changed only in their "
                "transactions)"
            ),
        ),
        ("UserGames", "membership", "`UserId`", "`GameId`", "`joinedAt` (ISO-8601 UTC)"),
        ("GameUsersIndex (GSI of UserGames, projection ALL)", "membership", "`GameId`", "`UserId`", "`joinedAt`"),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a game",
        route="`POST /games` `{gameId, name, maxPlayers}` → 201; exists → 409",
        who="admin",
        source="Games",
        key_condition="PutItem `attribute_not_exists(GameId)`, `playerCount = 0`",
        repository_method="`create_game`",
        tests=(
            "`test_an_admin_creates_a_game_and_anyone_signed_in_reads_it`, "
            "`test_creating_an_existing_game_is_409_and_keeps_it`, `test_bad_game_input_is_400_and_writes_nothing`, "
            "`test_only_admins_create_games`"
        ),
    ),
    AccessPattern(
        name="get a game",
        route="`GET /games/{gameId}`",
        who="signed in",
        source="Games",
        key_condition="GetItem `GameId = :g`",
        repository_method="`get_game`",
        tests=(
            "`test_an_admin_creates_a_game_and_anyone_signed_in_reads_it`, `test_an_unknown_game_is_404`, "
            "`test_reads_are_one_key_based_call_each`"
        ),
    ),
    AccessPattern(
        name="games of a user",
        route="`GET /games/by-user/{userId}`",
        who="the user, admin",
        source="UserGames",
        key_condition="Query `UserId = :u` (GameId order, paged)",
        repository_method="`games_of`",
        tests=(
            "`test_a_user_joins_a_game_and_it_counts_them`, `test_lists_page_with_cursors_bound_to_their_list`, "
            "`test_the_users_games_of_a_user_named_players_are_not_a_games_players`, e2e "
            "`test_the_slides_examples_are_answered`"
        ),
    ),
    AccessPattern(
        name="players of a game",
        route="`GET /games/{gameId}/players`",
        who="signed in",
        source="GameUsersIndex",
        key_condition="Query `GameId = :g` (UserId order, paged)",
        repository_method="`players_of`",
        tests=(
            "`test_players_of_an_unknown_game_is_404_and_of_an_empty_game_is_empty`, "
            "`test_lists_page_with_cursors_bound_to_their_list`, e2e `test_players_page_with_a_signed_cursor`"
        ),
    ),
    AccessPattern(
        name="join",
        route="`PUT /games/{gameId}/players/{userId}` → 201; again → 200",
        who="the user, admin",
        source="Games + UserGames",
        key_condition=(
            "TransactWriteItems: Update game `SET playerCount = playerCount + 1` if `attribute_exists(GameId) AND "
            "playerCount < maxPlayers`; Put membership if `attribute_not_exists(UserId)`"
        ),
        repository_method="`join`",
        tests=(
            "`test_join_and_leave_are_each_one_conditioned_transaction`, "
            "`test_a_full_game_refuses_another_player_with_409_and_writes_nothing`, "
            "`test_a_repeated_join_is_200_with_the_first_answer_and_counts_nothing`, "
            "`test_the_player_limit_holds_under_concurrent_joins`, e2e "
            "`test_20_parallel_joins_of_a_5_player_game_let_exactly_5_in`"
        ),
    ),
    AccessPattern(
        name="…repeated (is the user in the game?)",
        route="same",
        who="same",
        source="UserGames",
        key_condition="GetItem (`UserId`, `GameId`), consistent — only after a cancelled join",
        repository_method="`get_membership`",
        tests=(
            "`test_a_repeated_join_is_200_with_the_first_answer_and_counts_nothing`, "
            "`test_concurrent_repeats_of_one_join_count_once`"
        ),
    ),
    AccessPattern(
        name="leave",
        route="`DELETE /games/{gameId}/players/{userId}` → 204",
        who="the user, admin",
        source="Games + UserGames",
        key_condition=(
            "TransactWriteItems: Update game `SET playerCount = playerCount - 1` if `attribute_exists(GameId) AND "
            "playerCount > 0`; Delete membership if `attribute_exists(UserId)`"
        ),
        repository_method="`leave`",
        tests=(
            "`test_leaving_frees_the_place_once_and_a_second_leave_is_404`, `test_leaving_an_unknown_game_is_404`, "
            "`test_concurrent_leaves_and_joins_keep_the_count_exact`, "
            "`test_the_count_is_always_the_number_of_players_whatever_the_requests`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/games.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "userId": "bob",
    "gameId": "Game1",
}

# The seed's user (seeds/games.py), whom the explorer runs the patterns as (`make token USER=bob`):
# bob plays Game1 and Game3.
PERSONA = "bob"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_games_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a game id is created once',
        enforced_by='PutItem `attribute_not_exists(GameId)`',
        refusal='409 `GAME_EXISTS`',
        tests=(
            API + 'test_creating_an_existing_game_is_409_and_keeps_it',
        ),
    ),
    Rule(
        rule='a game never has more players than `maxPlayers`',
        enforced_by="join transaction, `playerCount < maxPlayers` on the game's Update",
        refusal='409 `GAME_FULL`',
        tests=(
            API + 'test_a_full_game_refuses_another_player_with_409_and_writes_nothing',
        ),
    ),
    Rule(
        rule='joining needs an existing game',
        enforced_by="`attribute_exists(GameId)` on the game's Update",
        refusal='404 `GAME_NOT_FOUND`',
        tests=(
            API + 'test_joining_an_unknown_game_is_404_and_writes_nothing',
        ),
    ),
    Rule(
        rule='a user is counted once per game',
        enforced_by='Put membership `attribute_not_exists(UserId)` in the join transaction',
        refusal='none: 200 with the stored membership',
        tests=(
            API + 'test_a_repeated_join_is_200_with_the_first_answer_and_counts_nothing',
        ),
    ),
    Rule(
        rule='leaving frees exactly one place',
        enforced_by='Delete membership `attribute_exists(UserId)` in the leave transaction; count `> 0`',
        refusal='404 `NOT_A_PLAYER` (404 `GAME_NOT_FOUND` for an unknown game)',
        tests=(
            API + 'test_leaving_frees_the_place_once_and_a_second_leave_is_404',
            API + 'test_leaving_an_unknown_game_is_404',
        ),
    ),
    Rule(
        rule='a user acts for themself, an admin for anyone',
        enforced_by='service check before any write',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_users_join_and_leave_for_themselves_and_admins_for_anyone',
        ),
    ),
    Rule(
        rule='only admins create games',
        enforced_by='`admin_only` (before body validation)',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_only_admins_create_games',
        ),
    ),
    Rule(
        rule=(
            'bad input (ids, `maxPlayers` not a whole number 1–1000, an empty name, unknown fields, `gameId = by-user`)'
        ),
        enforced_by='request validation',
        refusal='400 `VALIDATION_FAILED`, nothing written',
        tests=(
            API + 'test_bad_game_input_is_400_and_writes_nothing',
            API + 'test_bad_path_or_query_input_is_400',
        ),
    ),
)
