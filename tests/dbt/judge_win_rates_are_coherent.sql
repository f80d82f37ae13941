-- Every win-rate row adds up: counts and missing verdicts sum to n_pairs, the rate is
-- (wins + ties/2) / n in [0, 1] (a missing verdict counts against the candidate), the answered-only
-- rate divides by the judged pairs, and the Wilson interval contains the rate.
select *
from {{ ref('judge_win_rates') }}
where wins + ties + losses + n_incomplete <> n_pairs
   or (wins + ties + losses > 0
       and abs(win_rate_answered_only - (wins + 0.5 * ties) / (wins + ties + losses)) > 1e-12)
   or (n_pairs > 0 and abs(win_rate - (wins + 0.5 * ties) / n_pairs) > 1e-12)
   or win_rate < 0 or win_rate > 1
   or (n_pairs > 0 and not (win_rate_ci_low <= win_rate + 1e-12 and win_rate <= win_rate_ci_high + 1e-12))
