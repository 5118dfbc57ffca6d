-- AI calls that were billed but whose result was thrown away (invalid output, a failure later in
-- the same run) are spend too: they are recorded with outcome 'wasted' and count toward the
-- monthly limit, the operators' spend and the session totals; 'used' rows came with a result.
alter table public.ai_usage
  add column outcome text not null default 'used' check (outcome in ('used', 'wasted'));
