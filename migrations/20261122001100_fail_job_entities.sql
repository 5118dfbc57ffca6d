-- When the sweeper gives up on a job whose worker died, the entity the job was working on must not
-- stay `pending`/`processing` forever: this marks it `failed`, set-based, for the given jobs.
-- Payload ids are cast only when they look like uuids (CASE fixes the evaluation order).
create or replace function public.payload_uuid(payload jsonb, key text) returns uuid
language sql immutable set search_path = '' as $$
  select case when payload ->> key ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              then (payload ->> key)::uuid end
$$;

create or replace function public.fail_job_entities(job_ids uuid[]) returns void
language plpgsql set search_path = '' as $$
begin
  update public.impulses i set ai_status = 'failed'
    from public.jobs j
   where j.id = any(job_ids) and j.queue = 'impulse-classification'
     and i.id = public.payload_uuid(j.payload, 'impulseId') and i.ai_status in ('pending', 'processing');

  update public.check_ins c set ai_assessment_status = 'failed'
    from public.jobs j
   where j.id = any(job_ids) and j.queue = 'check-in-assessment'
     and c.id = public.payload_uuid(j.payload, 'checkInId') and c.ai_assessment_status in ('pending', 'processing');

  update public.sessions s set
      step_1_ai_status = case when j.payload ->> 'step' = '1' and s.step_1_ai_status in ('pending', 'processing') then 'failed' else s.step_1_ai_status end,
      step_2_ai_status = case when j.payload ->> 'step' = '2' and s.step_2_ai_status in ('pending', 'processing') then 'failed' else s.step_2_ai_status end,
      step_3_ai_status = case when j.payload ->> 'step' = '3' and s.step_3_ai_status in ('pending', 'processing') then 'failed' else s.step_3_ai_status end,
      step_4_ai_status = case when j.payload ->> 'step' = '4' and s.step_4_ai_status in ('pending', 'processing') then 'failed' else s.step_4_ai_status end,
      step_5_ai_status = case when j.payload ->> 'step' = '5' and s.step_5_ai_status in ('pending', 'processing') then 'failed' else s.step_5_ai_status end
    from public.jobs j
   where j.id = any(job_ids) and j.queue = 'unified-guidance' and s.id = public.payload_uuid(j.payload, 'sessionId');

  update public.sessions s set
      summary_status = case when coalesce(j.payload ->> 'reflection', 'false') <> 'true'
                             and s.summary_status in ('pending', 'processing') then 'failed' else s.summary_status end,
      reflection_status = case when j.payload ->> 'reflection' = 'true'
                                and s.reflection_status in ('pending', 'processing') then 'failed' else s.reflection_status end
    from public.jobs j
   where j.id = any(job_ids) and j.queue = 'session-summary' and s.id = public.payload_uuid(j.payload, 'sessionId');
end $$;

revoke all on function public.payload_uuid(jsonb, text), public.fail_job_entities(uuid[]) from public, anon, authenticated;
grant execute on function public.payload_uuid(jsonb, text), public.fail_job_entities(uuid[]) to service_role;
