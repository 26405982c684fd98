(** * The polytope K of the leaders' limits: a checker for T2, T3 and a vacuous T4, and its soundness.

    [check_polytope fates limits dirs mults] checks, for every token i with limit p_i and
    direction v_i: for a leader, v_i separates p_i strictly from every other leader's limit
    (so p_i is no convex combination of them: T2); for every token, the multipliers [mults_i]
    write p_i as a convex combination of the leaders' limits, v_i is nonzero and no leader's
    limit scores more than p_i against it (so p_i is on the boundary of K: T3). *)

From Coq Require Import QArith Qabs List Lia Lqa Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra.
Import ListNotations.
Open Scope Q_scope.

(** ** Convex combinations *)
Definition wsum (ws : list (Q * nat)) : Q := fold_right Qplus 0 (map fst ws).

Lemma dot_combination u P ws :
  dot u (combination P ws) == fold_right Qplus 0 (map (fun wj => fst wj * dot u (nth (snd wj) P [])) ws).
Proof.
  induction ws as [|[w j] ws IH]; cbn [combination map fold_right fst snd].
  - rewrite dot_nil_r. reflexivity.
  - rewrite dot_vadd_r, dot_vscale_r, IH. reflexivity.
Qed.

Definition wterms (u : vec) (P : list vec) (ws : list (Q * nat)) : Q :=
  fold_right Qplus 0 (map (fun wj => fst wj * dot u (nth (snd wj) P [])) ws).

Lemma wterms_bound u P ws c (strict : bool) :
  Forall (fun wj => 0 <= fst wj /\ (snd wj < length P)%nat) ws ->
  (forall j, (j < length P)%nat -> if strict then dot u (nth j P []) < c else dot u (nth j P []) <= c) ->
  wterms u P ws <= wsum ws * c /\ (strict = true -> 0 < wsum ws -> wterms u P ws < wsum ws * c).
Proof.
  intros Hws Hle. unfold wterms, wsum. induction ws as [|[w j] ws IH]; cbn [map fold_right fst snd].
  - split; [lra | intros _ H; lra].
  - inversion Hws as [|? ? [Hw Hj] Hrest]; subst. destruct (IH Hrest) as [IH1 IH2].
    pose proof (Hle j Hj) as Hs.
    assert (Hle' : dot u (nth j P []) <= c) by (destruct strict; [apply Qlt_le_weak|]; exact Hs).
    assert (H1 : dot u (nth j P []) * w <= c * w) by (apply Qmult_le_compat_r; assumption).
    set (S := fold_right Qplus 0 (map (fun wj => fst wj * dot u (nth (snd wj) P [])) ws)) in *.
    set (W := fold_right Qplus 0 (map fst ws)) in *.
    setoid_replace ((w + W) * c) with (c * w + W * c) by ring.
    rewrite (Qmult_comm w).
    split; [apply Qplus_le_compat; assumption|]. intros Hst Hpos. subst strict.
    destruct (Qle_lt_or_eq _ _ Hw) as [Hw'|Hw'].
    + assert (H2 : dot u (nth j P []) * w < c * w) by (apply Qmult_lt_r; assumption).
      apply Qplus_lt_le_compat; assumption.
    + rewrite <- Hw' in *. assert (HW : 0 < W) by lra.
      specialize (IH2 eq_refl HW). setoid_replace (dot u (nth j P []) * 0) with 0 by ring.
      setoid_replace (c * 0) with 0 by ring. lra.
Qed.

Lemma in_hull_bound u P x c (strict : bool) : in_hull P x ->
  (forall j, (j < length P)%nat -> if strict then dot u (nth j P []) < c else dot u (nth j P []) <= c) ->
  if strict then dot u x < c else dot u x <= c.
Proof.
  intros (ws & Hws & Hsum & Hx) Hle.
  destruct (wterms_bound u P ws c strict Hws Hle) as [H1 H2]. fold (wsum ws) in Hsum.
  assert (E : dot u x == wterms u P ws) by (rewrite (dot_veq_r u _ _ Hx), dot_combination; reflexivity).
  destruct strict; rewrite E.
  - assert (H : wterms u P ws < wsum ws * c) by (apply H2; [reflexivity | rewrite Hsum; reflexivity]).
    rewrite Hsum in H. lra.
  - rewrite Hsum in H1. lra.
Qed.

(** ** The leaders' limits *)
Lemma in_leader_limits fates limits skip y :
  In y (leader_limits fates limits skip) <->
  exists j, (j < length fates)%nat /\ is_leader_b (nth j fates (Leader 0)) = true /\ j <> skip /\ y = nth j limits [].
Proof.
  unfold leader_limits. rewrite in_map_iff. split.
  - intros (j & <- & Hj). apply filter_In in Hj as [Hj Hb]. apply in_seq in Hj.
    apply andb_true_iff in Hb as [Hl Hs]. apply negb_true_iff, Nat.eqb_neq in Hs.
    exists j. repeat split; auto; lia.
  - intros (j & Hj & Hl & Hs & ->). exists j. split; [reflexivity|].
    apply filter_In. split; [apply in_seq; lia|]. rewrite Hl. apply Nat.eqb_neq in Hs. rewrite Hs. reflexivity.
Qed.

Lemma nth_leader_limits fates limits skip j : (j < length (leader_limits fates limits skip))%nat ->
  exists i, (i < length fates)%nat /\ is_leader_b (nth i fates (Leader 0)) = true /\ i <> skip /\
            nth j (leader_limits fates limits skip) [] = nth i limits [].
Proof. intro H. apply in_leader_limits, nth_In, H. Qed.

(** ** The checker *)
Definition nonzero_b (v : vec) : bool := existsb (fun q => negb (Qeq_bool q 0)) v.

Definition convex_b (P : list vec) (ws : list (Q * nat)) (x : vec) : bool :=
  forallb (fun wj => Qle_bool 0 (fst wj) && Nat.ltb (snd wj) (length P)) ws &&
  Qeq_bool (wsum ws) 1 && veqb x (combination P ws).

Definition check_token_polytope (d : nat) (fates : list fate) (limits : list vec) (K : list vec)
           (i : nat) (v : vec) (ws : list (Q * nat)) : bool :=
  let p := nth i limits [] in
  let top := dot v p in
  (if is_leader_b (nth i fates (Leader 0))
   then forallb (fun q => negb (Qle_bool top (dot v q))) (leader_limits fates limits i) else true) &&
  convex_b K ws p && nonzero_b (firstn d v) && forallb (fun q => Qle_bool (dot v q) top) K.

Definition check_polytope (d : nat) (fates : list fate) (limits : list vec) (dirs : list vec)
           (mults : list (list (Q * nat))) : bool :=
  let K := leader_limits fates limits (length fates) in
  Nat.eqb (length dirs) (length fates) && Nat.eqb (length mults) (length fates) &&
  forallb (fun i => check_token_polytope d fates limits K i (nth i dirs []) (nth i mults []))
          (seq 0 (length fates)).

Lemma nth_firstn_lt (v : vec) d a : (a < d)%nat -> nth a (firstn d v) 0 = nth a v 0.
Proof.
  revert d a; induction v as [|q v IH]; intros [|d] [|a] H; cbn; try reflexivity; try lia.
  apply IH. lia.
Qed.

Lemma nonzero_b_correct d v : nonzero_b (firstn d v) = true -> exists a, (a < d)%nat /\ ~ coord v a == 0.
Proof.
  unfold nonzero_b. rewrite existsb_exists. intros (q & Hq & Hn).
  apply In_nth with (d := 0) in Hq as (a & Hlt & Ha). rewrite firstn_length in Hlt.
  assert (Had : (a < d)%nat) by lia.
  exists a. split; [exact Had|]. unfold coord. rewrite nth_firstn_lt in Ha by exact Had.
  rewrite Ha. intro E'. apply Qeq_bool_iff in E'. rewrite E' in Hn. discriminate.
Qed.

Lemma convex_b_correct P ws x : convex_b P ws x = true -> in_hull P x.
Proof.
  unfold convex_b. rewrite !andb_true_iff, forallb_forall. intros ((H1 & H2) & H3).
  exists ws. split; [|split].
  - apply Forall_forall. intros wj Hwj. specialize (H1 wj Hwj). apply andb_true_iff in H1 as [Ha Hb].
    split; [apply Qle_bool_iff, Ha | apply Nat.ltb_lt, Hb].
  - apply Qeq_bool_iff, H2.
  - apply veqb_correct, H3.
Qed.

Lemma leader_b_fate f : is_leader_b f = true <-> is_leader_fate f.
Proof. destruct f; cbn; split; intro; try exact I; try reflexivity; try discriminate; contradiction. Qed.

Theorem polytope_sound d fates limits dirs mults :
  check_polytope d fates limits dirs mults = true -> Polytope d fates limits.
Proof.
  unfold check_polytope. rewrite !andb_true_iff, forallb_forall. intros ((_ & _) & H).
  set (K := leader_limits fates limits (length fates)) in *.
  assert (Ht : forall i, (i < length fates)%nat ->
            check_token_polytope d fates limits K i (nth i dirs []) (nth i mults []) = true)
    by (intros i Hi; apply H, in_seq; lia).
  split.
  - intros i Hi Hl Hin. specialize (Ht i Hi). unfold check_token_polytope in Ht. cbv zeta in Ht.
    apply leader_b_fate in Hl. rewrite Hl, !andb_true_iff, forallb_forall in Ht. destruct Ht as (((Hsep & _) & _) & _).
    set (v := nth i dirs []) in *. set (p := nth i limits []) in *.
    assert (Hlt : dot v p < dot v p).
    { apply (in_hull_bound v (leader_limits fates limits i) p (dot v p) true Hin).
      intros j Hj. specialize (Hsep _ (nth_In _ [] Hj)). cbn beta in Hsep |- *.
      apply negb_true_iff in Hsep. destruct (Qlt_le_dec (dot v (nth j (leader_limits fates limits i) [])) (dot v p))
        as [Hlt|Hge]; [exact Hlt|]. apply Qle_bool_iff in Hge. unfold vec in *. congruence. }
    apply (Qlt_irrefl _ Hlt).
  - intros i Hi. specialize (Ht i Hi). unfold check_token_polytope in Ht. cbv zeta in Ht.
    rewrite !andb_true_iff, forallb_forall in Ht. destruct Ht as (((_ & Hconv) & Hnz) & Hsup).
    split; [apply (convex_b_correct _ _ _ Hconv)|].
    exists (nth i dirs []). split; [apply (nonzero_b_correct d), Hnz|].
    intros y Hy. apply (in_hull_bound _ K y _ false Hy).
    intros j Hj. apply Qle_bool_iff, Hsup, nth_In, Hj.
Qed.
