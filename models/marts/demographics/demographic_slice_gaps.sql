-- The largest gap per (condition, slice_type), one row each: the gap columns that
-- demographic_slices repeats on every slice row, without the repetition.
with demographic_slices as (
    select * from {{ ref('demographic_slices') }}
),

gaps as (
    select distinct
        condition_id,
        rater_kind,
        slice_type,
        n_slices,
        f1_gap_pp,
        f1_max_slice,
        f1_min_slice,
        accuracy_gap_pp,
        accuracy_max_slice,
        accuracy_min_slice,
        gap_reason,
        data_origin
    from demographic_slices
)

select * from gaps
