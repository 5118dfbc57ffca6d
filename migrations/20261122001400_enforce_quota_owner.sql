-- The quota trigger runs before RLS checks the row's owner: consuming another user's quota first
-- would answer IMPULSE_QUOTA_EXCEEDED or not depending on that user's account state. An app user
-- inserting a row for someone else is refused first, as RLS would; service inserts (no auth.uid())
-- still consume the owner's quota.
create or replace function public.enforce_quota() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if auth.uid() is not null and new.user_id is distinct from auth.uid() then
    -- Postgres's own RLS message, so the client sees the same error either way.
    raise exception 'new row violates row-level security policy for table "%"', tg_table_name
      using errcode = 'insufficient_privilege';
  end if;
  if not public.consume_quota(new.user_id, tg_argv[0]) then
    raise exception 'IMPULSE_QUOTA_EXCEEDED' using errcode = 'P0001', hint = 'quota';
  end if;
  return new;
end $$;
