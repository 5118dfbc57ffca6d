-- The five find_similar_* functions. tests.vec_sim(s) has cosine similarity s with tests.vec(0),
-- so every expected similarity below is exact (up to float4 rounding).
begin;
select plan(26);

select tests.create_user('alice', 'mastery');
select tests.create_user('bob', 'mastery');

select tests.keep('src', tests.add_impulse('alice', 'source', tests.vec(0)));
select tests.keep('i95', tests.add_impulse('alice', '0.95', tests.vec_sim(0.95)));
select tests.keep('i85', tests.add_impulse('alice', '0.85', tests.vec_sim(0.85)));
select tests.keep('i72', tests.add_impulse('alice', '0.72', tests.vec_sim(0.72)));
select tests.keep('i50', tests.add_impulse('alice', '0.50', tests.vec_sim(0.50)));
select tests.keep('inull', tests.add_impulse('alice', 'no embedding'));
select tests.keep('b99', tests.add_impulse('bob', 'bob 0.99', tests.vec_sim(0.99)));

select tests.keep('s90', tests.add_session('alice', tests.id('src'), tests.vec_sim(0.90)));
select tests.keep('s75', tests.add_session('alice', tests.id('src'), tests.vec_sim(0.75)));
select tests.keep('s60', tests.add_session('alice', tests.id('src'), tests.vec_sim(0.60)));
select tests.keep('snull', tests.add_session('alice', tests.id('src')));
select tests.keep('bs', tests.add_session('bob', tests.id('b99'), tests.vec(0)));

select tests.keep('c80', tests.add_check_in('alice', '0.80', tests.vec_sim(0.80)));
select tests.keep('c71', tests.add_check_in('alice', '0.71', tests.vec_sim(0.71)));
select tests.keep('c69', tests.add_check_in('alice', '0.69', tests.vec_sim(0.69)));
select tests.keep('cnull', tests.add_check_in('alice', 'no embedding'));
select tests.keep('bc', tests.add_check_in('bob', 'bob', tests.vec(0)));

select tests.act_as('alice');

-- find_similar_impulses
select results_eq($$select id from public.find_similar_impulses(tests.vec(0))$$,
  $$values (tests.id('src')), (tests.id('i95')), (tests.id('i85')), (tests.id('i72'))$$,
  'impulses at or above the default 0.7, most similar first; none below, none without embedding, none of bob''s');
select results_eq($$select round(similarity::numeric, 3) from public.find_similar_impulses(tests.vec(0))$$,
  $$values (1.000), (0.950), (0.850), (0.720)$$, 'similarity is the cosine similarity');
select results_eq($$select id from public.find_similar_impulses(tests.vec(0), 0.9)$$,
  $$values (tests.id('src')), (tests.id('i95'))$$, 'a higher threshold excludes the rows below it');
select results_eq($$select id from public.find_similar_impulses(tests.vec(0), 0.4)$$,
  $$values (tests.id('src')), (tests.id('i95')), (tests.id('i85')), (tests.id('i72')), (tests.id('i50'))$$,
  'a lower threshold includes more');
select results_eq($$select id from public.find_similar_impulses(tests.vec(0), 0.7, 2)$$,
  $$values (tests.id('src')), (tests.id('i95'))$$, 'match_count limits the result to the most similar');
select results_eq($$select id from public.find_similar_impulses(tests.vec(0), 0.7, 10, tests.id('src'))$$,
  $$values (tests.id('i95')), (tests.id('i85')), (tests.id('i72'))$$, 'exclude_id leaves the given impulse out');
select is_empty($$select id from public.find_similar_impulses(tests.vec(0), 0.7, 0)$$, 'match_count 0 returns nothing');
select is_empty($$select id from public.find_similar_impulses(tests.vec(180))$$, 'an opposite vector matches nothing');

-- find_similar_to_impulse
select results_eq($$select id from public.find_similar_to_impulse(tests.id('src'))$$,
  $$values (tests.id('i95')), (tests.id('i85')), (tests.id('i72'))$$, 'impulses similar to an impulse, without the impulse itself');
select results_eq($$select id from public.find_similar_to_impulse(tests.id('src'), 0.8, 1)$$,
  $$values (tests.id('i95'))$$, 'threshold and count apply to find_similar_to_impulse');
select is_empty($$select id from public.find_similar_to_impulse(tests.id('b99'))$$, 'bob''s impulse cannot be the source');
select is_empty($$select id from public.find_similar_to_impulse(tests.id('inull'))$$, 'an impulse without embedding has no similar impulses');

-- find_similar_sessions
select results_eq($$select id from public.find_similar_sessions(tests.vec(0))$$,
  $$values (tests.id('s90')), (tests.id('s75'))$$, 'sessions at or above 0.7, most similar first, only alice''s');
select results_eq($$select id from public.find_similar_sessions(tests.vec(0), 0.5)$$,
  $$values (tests.id('s90')), (tests.id('s75')), (tests.id('s60'))$$, 'a lower threshold includes the 0.6 session');
select results_eq($$select id from public.find_similar_sessions(tests.vec(0), 0.5, 1)$$,
  $$values (tests.id('s90'))$$, 'match_count limits sessions');
select results_eq($$select round(similarity::numeric, 3), impulse_id from public.find_similar_sessions(tests.vec(0))$$,
  $$values (0.900, tests.id('src')), (0.750, tests.id('src'))$$, 'sessions carry their similarity and impulse');

-- find_sessions_similar_to_impulse
select results_eq($$select id from public.find_sessions_similar_to_impulse(tests.id('src'))$$,
  $$values (tests.id('s90')), (tests.id('s75'))$$, 'sessions similar to an impulse');
select is_empty($$select id from public.find_sessions_similar_to_impulse(tests.id('b99'))$$, 'bob''s impulse cannot be the source for sessions');
select is_empty($$select id from public.find_sessions_similar_to_impulse(tests.id('inull'))$$, 'an impulse without embedding has no similar sessions');

-- find_similar_check_ins
select results_eq($$select id from public.find_similar_check_ins(tests.vec(0))$$,
  $$values (tests.id('c80')), (tests.id('c71'))$$, 'check-ins at or above 0.7, most similar first, only alice''s');
select results_eq($$select id from public.find_similar_check_ins(tests.vec(0), 0.6)$$,
  $$values (tests.id('c80')), (tests.id('c71')), (tests.id('c69'))$$, 'a lower threshold includes the 0.69 check-in');
select results_eq($$select id from public.find_similar_check_ins(tests.vec(0), 0.6, 1)$$,
  $$values (tests.id('c80'))$$, 'match_count limits check-ins');

-- Bob sees only his own rows through every search.
select tests.act_as('bob');
select results_eq($$select id from public.find_similar_impulses(tests.vec(0), 0.1)
                    union all select id from public.find_similar_sessions(tests.vec(0), 0.1)
                    union all select id from public.find_similar_check_ins(tests.vec(0), 0.1)$$,
  $$values (tests.id('b99')), (tests.id('bs')), (tests.id('bc'))$$, 'bob''s searches return only bob''s rows');

-- Without a user, nothing; anon cannot call.
select tests.act_as_service();
select is_empty($$select id from public.find_similar_impulses(tests.vec(0), 0.1)$$, 'without a user id no rows are returned');
select tests.act_as_anon();
select throws_ok($$select * from public.find_similar_impulses(tests.vec(0))$$, '42501', null, 'anon cannot search');

-- The result is capped at 100.
select tests.reset_role();
update public.subscription_config set impulse_limit = null where tier = 'mastery';
insert into public.impulses (user_id, content, classification, embedding)
select tests.uid('alice'), 'bulk', 'expansion', tests.vec(1) from generate_series(1, 110);
select tests.act_as('alice');
select is((select count(*)::int from public.find_similar_impulses(tests.vec(0), 0.7, 1000)), 100, 'at most 100 results');

select * from finish();
rollback;
