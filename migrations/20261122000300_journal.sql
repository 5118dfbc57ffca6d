-- Journal content: areas, layers, impulses, sessions, notes, check-ins.
-- Links between a user's rows use composite foreign keys (id, user_id), so the database itself
-- refuses a link to another user's row.

create table public.areas (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  display_name text,
  is_system boolean not null default false,
  sort_order integer not null default 0
);

create table public.layers (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  sort_order integer not null unique check (sort_order between 1 and 4)
);

create table public.check_ins (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  content text not null check (char_length(content) between 1 and 500),
  classification text check (classification in ('contraction', 'expansion', 'neutral')),
  ai_assessment jsonb check (ai_assessment is null or jsonb_typeof(ai_assessment) = 'object'),
  ai_assessment_status text not null default 'idle'
    check (ai_assessment_status in ('idle', 'pending', 'processing', 'complete', 'failed')),
  embedding extensions.vector(512),
  embedding_model text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, user_id)
);
create index check_ins_user_created_idx on public.check_ins (user_id, created_at desc, id desc);
create trigger check_ins_updated_at before update on public.check_ins
  for each row execute function public.set_updated_at();

create table public.impulses (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  content text not null check (char_length(content) between 1 and 2000),
  classification public.impulse_classification not null,
  processual_status public.processual_status not null default 'captured',
  content_validity public.content_validity not null default 'valid',
  ai_analysis jsonb check (ai_analysis is null or jsonb_typeof(ai_analysis) = 'object'),
  ai_status public.ai_workload_status not null default 'pending',
  title text,
  primary_layer_id uuid references public.layers (id) on delete set null,
  secondary_layer_id uuid references public.layers (id) on delete set null,
  embedding extensions.vector(512),
  embedding_model text,
  source_check_in_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, user_id),
  unique (source_check_in_id),
  foreign key (source_check_in_id, user_id) references public.check_ins (id, user_id)
    on delete set null (source_check_in_id)
);
create index impulses_user_created_idx on public.impulses (user_id, created_at desc, id desc);
create index impulses_user_class_idx on public.impulses (user_id, classification, created_at desc, id desc);
create index impulses_user_status_idx on public.impulses (user_id, processual_status, created_at desc, id desc);
create index impulses_user_validity_idx on public.impulses (user_id, content_validity, created_at desc, id desc);
create index impulses_primary_layer_idx on public.impulses (primary_layer_id);
create index impulses_secondary_layer_idx on public.impulses (secondary_layer_id);
create trigger impulses_updated_at before update on public.impulses
  for each row execute function public.set_updated_at();

-- Areas the AI assigned to an impulse (from ai_analysis.areas), for filtering by area.
create table public.impulse_areas (
  impulse_id uuid not null,
  user_id uuid not null,
  area_id uuid not null references public.areas (id) on delete cascade,
  relevance_score numeric(3, 2) not null check (relevance_score between 0 and 1),
  primary key (impulse_id, area_id),
  foreign key (impulse_id, user_id) references public.impulses (id, user_id) on delete cascade
);
create index impulse_areas_user_area_idx on public.impulse_areas (user_id, area_id);
create index impulse_areas_area_idx on public.impulse_areas (area_id);

create table public.sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  impulse_id uuid not null,
  classification public.session_type not null,
  status public.session_status not null default 'created',
  current_step integer not null default 1 check (current_step between 1 and 5),
  step_1_input text check (char_length(step_1_input) <= 5000),
  step_2_input text check (char_length(step_2_input) <= 5000),
  step_3_input text check (char_length(step_3_input) <= 5000),
  step_4_input text check (char_length(step_4_input) <= 5000),
  step_5_input text check (char_length(step_5_input) <= 5000),
  step_1_guidance text,
  step_2_guidance text,
  step_3_guidance text,
  step_4_guidance text,
  step_5_guidance text,
  step_1_ai_status public.ai_workload_status not null default 'pending',
  step_2_ai_status public.ai_workload_status not null default 'idle',
  step_3_ai_status public.ai_workload_status not null default 'idle',
  step_4_ai_status public.ai_workload_status not null default 'idle',
  step_5_ai_status public.ai_workload_status not null default 'idle',
  summary_document jsonb check (summary_document is null or jsonb_typeof(summary_document) = 'object'),
  summary_status public.ai_workload_status not null default 'idle',
  user_reflection text check (char_length(user_reflection) <= 5000),
  reflection_conclusion text,
  reflection_status public.ai_workload_status not null default 'idle',
  embedding extensions.vector(512),
  embedding_model text not null default 'text-embedding-3-small',
  total_input_tokens integer not null default 0 check (total_input_tokens >= 0),
  total_output_tokens integer not null default 0 check (total_output_tokens >= 0),
  total_cost numeric(10, 6) not null default 0 check (total_cost >= 0),
  started_at timestamptz,
  completed_at timestamptz,
  abandoned_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (id, user_id),
  foreign key (impulse_id, user_id) references public.impulses (id, user_id)
);
create index sessions_user_created_idx on public.sessions (user_id, created_at desc, id desc);
create index sessions_user_status_idx on public.sessions (user_id, status, created_at desc, id desc);
create index sessions_impulse_idx on public.sessions (impulse_id, user_id);
-- At most one open session per impulse.
create unique index sessions_one_open_per_impulse on public.sessions (impulse_id)
  where status in ('created', 'active');
create trigger sessions_updated_at before update on public.sessions
  for each row execute function public.set_updated_at();

create table public.notes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references public.profiles (id) on delete cascade,
  content text not null check (char_length(content) between 1 and 10000),
  note_type public.note_type not null default 'reflection',
  impulse_id uuid,
  session_id uuid,
  session_step smallint check (session_step between 1 and 5),
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (session_step is null or session_id is not null),
  -- A note outlives a deleted impulse as a standalone note: the user's writing is never lost.
  foreign key (impulse_id, user_id) references public.impulses (id, user_id) on delete set null (impulse_id),
  foreign key (session_id, user_id) references public.sessions (id, user_id) on delete cascade
);
create index notes_user_created_idx on public.notes (user_id, created_at desc, id desc) where archived_at is null;
create index notes_user_all_created_idx on public.notes (user_id, created_at desc, id desc);
create index notes_impulse_idx on public.notes (impulse_id, user_id);
create index notes_session_idx on public.notes (session_id, user_id);
create trigger notes_updated_at before update on public.notes
  for each row execute function public.set_updated_at();
