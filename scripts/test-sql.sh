#!/usr/bin/env bash
# Runs every pgTAP file in tests/sql on a fresh clone of the template database.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PGHOST:=127.0.0.1}" "${PGPORT:=5432}" "${PGUSER:=postgres}"
export PGHOST PGPORT PGUSER
template=${TEST_TEMPLATE_DB:-$(npx tsx scripts/prepare-test-db.ts)}
db="journal_sql_$$"
psql -q -d postgres -c "create database $db template $template" >/dev/null
trap 'psql -q -d postgres -c "drop database if exists $db with (force)" >/dev/null' EXIT
psql -q -d "$db" -v ON_ERROR_STOP=1 -f tests/sql/helpers.sql >/dev/null
pg_prove -d "$db" --ext .sql -r tests/sql/suites
