-- Extensions, enums and small helpers shared by the later migrations.
create extension if not exists vector with schema extensions;

create type public.impulse_classification as enum ('contraction', 'expansion');
create type public.processual_status as enum ('captured', 'transforming', 'transformed');
create type public.session_status as enum ('created', 'active', 'completed', 'abandoned');
create type public.session_type as enum ('contraction', 'expansion');
create type public.note_type as enum ('gratitude', 'reflection');
create type public.ai_workload_status as enum ('idle', 'pending', 'processing', 'complete', 'failed');
create type public.content_validity as enum ('valid', 'low_confidence', 'gibberish');

-- Supabase grants everything on new public tables to anon and authenticated by default; we
-- revoke that so each table's grants below are the whole truth, locally and on Supabase.
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on functions from public, anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;

create or replace function public.set_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := now();
  return new;
end $$;
