#!/usr/bin/env bash
# The one test command (npm test): provision PostgreSQL extensions, build the migrated template,
# run the pgTAP suites, the vitest suites, and type-check every function entry under Deno.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== provisioning PostgreSQL extensions"
bash scripts/provision-postgres.sh

echo "== template database"
TEST_TEMPLATE_DB=$(npx tsx scripts/prepare-test-db.ts)
export TEST_TEMPLATE_DB
echo "$TEST_TEMPLATE_DB"

echo "== pgTAP"
bash scripts/test-sql.sh

echo "== deno check"
npx deno check functions/*/index.ts

echo "== vitest"
npx vitest run
