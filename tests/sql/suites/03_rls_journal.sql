-- Journal tables (impulses, sessions, notes, check_ins, impulse_areas) under anon, the owner,
-- another user and the service role; links to another user's rows are refused by the database.
begin;

-- Tables with an id column, and the keys of alice's and bob's row in each.
create temp table owned (tbl text, alice_key text, bob_key text) on commit drop;
insert into owned values ('impulses', 'a_imp', 'b_imp'), ('sessions', 'a_ses', 'b_ses'),
                         ('notes', 'a_note', 'b_note'), ('check_ins', 'a_ci', 'b_ci');
grant select on owned to public;

select plan(8 * 4 + 23);

select tests.create_user('alice', 'foundation');
select tests.create_user('bob', 'foundation');
select tests.keep('a_imp', tests.add_impulse('alice', 'alice impulse'));
select tests.keep('b_imp', tests.add_impulse('bob', 'bob impulse'));
select tests.keep('a_ses', tests.add_session('alice', tests.id('a_imp')));
select tests.keep('b_ses', tests.add_session('bob', tests.id('b_imp')));
select tests.keep('a_ci', tests.add_check_in('alice'));
select tests.keep('b_ci', tests.add_check_in('bob'));
with n as (insert into public.notes (user_id, content) values (tests.uid('alice'), 'alice note') returning id)
select tests.keep('a_note', id) from n;
with n as (insert into public.notes (user_id, content, impulse_id) values (tests.uid('bob'), 'bob note', tests.id('b_imp')) returning id)
select tests.keep('b_note', id) from n;
insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score)
select tests.id(k), tests.uid(u), (select id from public.areas where name = 'career'), 0.8
  from (values ('a_imp', 'alice'), ('b_imp', 'bob')) v(k, u);

-- anon has no grant on any of them.
select tests.act_as_anon();
select throws_ok(format('select id from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot read ' || tbl) from owned order by tbl;
select throws_ok(format('delete from public.%I', tbl), '42501', format('permission denied for table %s', tbl),
                 'anon cannot delete from ' || tbl) from owned order by tbl;

-- The owner reads only its rows and cannot touch bob's.
select tests.act_as('alice');
select results_eq(format('select id from public.%I', tbl), format('values (tests.id(%L))', alice_key),
                  'alice reads only her own ' || tbl) from owned order by tbl;
select is_empty(format('select id from public.%I where id = tests.id(%L)', tbl, bob_key),
                'alice cannot read bob''s row of ' || tbl) from owned order by tbl;
select is_empty(format('with u as (update public.%I set updated_at = now() where id = tests.id(%L) returning id) select id from u', tbl, bob_key),
                'alice updates no row of bob''s in ' || tbl) from owned order by tbl;
select is_empty(format('with d as (delete from public.%I where id = tests.id(%L) returning id) select id from d', tbl, bob_key),
                'alice deletes no row of bob''s in ' || tbl) from owned order by tbl;
select throws_ok(format('update public.%I set user_id = tests.uid(%L) where id = tests.id(%L)', tbl, 'bob', alice_key),
                 '42501', format('new row violates row-level security policy for table "%s"', tbl),
                 'alice cannot move her row of ' || tbl || ' to bob') from owned order by tbl;

-- Inserting a row for another user.
select throws_ok($$insert into public.impulses (user_id, content, classification) values (tests.uid('bob'), 'x', 'expansion')$$,
  '42501', 'new row violates row-level security policy for table "impulses"', 'alice cannot insert an impulse for bob');
select throws_ok($$insert into public.check_ins (user_id, content) values (tests.uid('bob'), 'x')$$,
  '42501', 'new row violates row-level security policy for table "check_ins"', 'alice cannot insert a check-in for bob');
select throws_ok($$insert into public.notes (user_id, content) values (tests.uid('bob'), 'x')$$,
  '42501', 'new row violates row-level security policy for table "notes"', 'alice cannot insert a note for bob');
select throws_ok($$insert into public.sessions (user_id, impulse_id, classification) values (tests.uid('bob'), tests.id('b_imp'), 'contraction')$$,
  '42501', 'new row violates row-level security policy for table "sessions"', 'alice cannot insert a session for bob');

-- Cross-user links with alice's own user_id: the composite foreign keys refuse them.
select throws_ok($$insert into public.notes (user_id, content, impulse_id) values (tests.uid('alice'), 'x', tests.id('b_imp'))$$,
  '23503', null, 'a note on bob''s impulse is refused');
select throws_ok($$insert into public.notes (user_id, content, session_id, session_step) values (tests.uid('alice'), 'x', tests.id('b_ses'), 1)$$,
  '23503', null, 'a note on bob''s session is refused');
select throws_ok($$update public.notes set impulse_id = tests.id('b_imp') where id = tests.id('a_note')$$,
  '23503', null, 'alice cannot relink her note to bob''s impulse');
select throws_ok($$insert into public.sessions (user_id, impulse_id, classification) values (tests.uid('alice'), tests.id('b_imp'), 'contraction')$$,
  '23503', null, 'a session on bob''s impulse is refused');
select throws_ok($$insert into public.impulses (user_id, content, classification, source_check_in_id) values (tests.uid('alice'), 'x', 'contraction', tests.id('b_ci'))$$,
  '23503', null, 'an impulse from bob''s check-in is refused');
select throws_ok($$insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score) values (tests.id('b_imp'), tests.uid('alice'), (select id from public.areas where name = 'health'), 0.5)$$,
  '23503', null, 'an area link on bob''s impulse is refused');

-- The owner's own writes work.
select lives_ok($$insert into public.impulses (user_id, content, classification, source_check_in_id) values (tests.uid('alice'), 'from check-in', 'expansion', tests.id('a_ci'))$$,
  'alice converts her own check-in into an impulse');
select lives_ok($$insert into public.notes (user_id, content, session_id, session_step, impulse_id) values (tests.uid('alice'), 'step note', tests.id('a_ses'), 3, tests.id('a_imp'))$$,
  'alice adds a note to a step of her session');
select results_eq($$with u as (update public.check_ins set classification = 'neutral' where id = tests.id('a_ci') returning classification) select classification from u$$,
  $$values ('neutral'::text)$$, 'alice updates her check-in');

-- impulse_areas (no id column).
select results_eq($$select impulse_id from public.impulse_areas$$, $$values (tests.id('a_imp'))$$,
  'alice reads only her own impulse areas');
select is_empty($$with d as (delete from public.impulse_areas where impulse_id = tests.id('b_imp') returning impulse_id) select impulse_id from d$$,
  'alice deletes none of bob''s impulse areas');
select throws_ok($$insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score) values (tests.id('b_imp'), tests.uid('bob'), (select id from public.areas where name = 'health'), 0.5)$$,
  '42501', 'new row violates row-level security policy for table "impulse_areas"', 'alice cannot add an area link for bob');
select throws_ok($$update public.impulse_areas set user_id = tests.uid('bob') where impulse_id = tests.id('a_imp')$$,
  '42501', 'new row violates row-level security policy for table "impulse_areas"', 'alice cannot move her area link to bob');
select lives_ok($$insert into public.impulse_areas (impulse_id, user_id, area_id, relevance_score) values (tests.id('a_imp'), tests.uid('alice'), (select id from public.areas where name = 'health'), 0.5)$$,
  'alice adds an area link to her impulse');

-- Another user sees his own only.
select tests.act_as('bob');
select results_eq($$select content from public.impulses$$, $$values ('bob impulse'::text)$$, 'bob reads only his impulse');
select results_eq($$select content from public.notes$$, $$values ('bob note'::text)$$, 'bob reads only his note');
select results_eq($$select impulse_id from public.impulse_areas$$, $$values (tests.id('b_imp'))$$, 'bob reads only his impulse areas');

-- The service role reads every row.
select tests.act_as_service();
select results_eq(format('select count(*)::int from public.%I where user_id in (tests.uid(%L), tests.uid(%L)) and id in (tests.id(%L), tests.id(%L))', tbl, 'alice', 'bob', alice_key, bob_key),
                  $$values (2)$$, 'service role reads both users'' rows of ' || tbl) from owned order by tbl;

-- Bob's rows survived alice's attempts, untouched.
select tests.reset_role();
select is((select count(*)::int from public.impulses i join public.sessions s on s.impulse_id = i.id
            join public.notes n on n.impulse_id = i.id join public.impulse_areas a on a.impulse_id = i.id
           where i.id = tests.id('b_imp') and s.id = tests.id('b_ses') and n.id = tests.id('b_note')
             and i.user_id = tests.uid('bob') and s.user_id = tests.uid('bob') and n.user_id = tests.uid('bob')),
  1, 'bob''s impulse, session, note and area link are still his');
select is((select user_id from public.check_ins where id = tests.id('b_ci')), tests.uid('bob'), 'bob''s check-in is still his');

select * from finish();
rollback;
