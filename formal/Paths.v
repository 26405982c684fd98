(** * Closed-form paths (docs/theory.md D9): a segment of paths that the dynamics follows for
    every later layer, and the limits it gives. *)

From Coq Require Import QArith Qabs Qround List Lia Lqa Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra Dynamics Checker ExpPoly.
Import ListNotations.
Open Scope Q_scope.

Lemma qlt_complete x y : x < y -> qlt x y = true.
Proof. intro H. unfold qlt. apply negb_true_iff. destruct (Qle_bool y x) eqn:E; [|reflexivity].
  apply Qle_bool_iff in E. lra. Qed.

(** ** t^a b^t -> 0 for 0 < b < 1 *)
Lemma term_small a b : 0 < b -> b < 1 -> forall eps, 0 < eps -> exists N, forall t, (N <= t)%nat -> tval a b t <= eps.
Proof.
  intros Hb0 Hb1 eps He.
  set (rho := (1 + b) / 2).
  assert (Hrb : b < rho) by (unfold rho; apply Qlt_shift_div_l; lra).
  assert (Hr1 : rho < 1) by (unfold rho; apply Qlt_shift_div_r; lra).
  set (z := Qceiling (qn a * rho / (rho - b))).
  set (T := S (Z.to_nat z)).
  assert (HT1 : (1 <= T)%nat) by (unfold T; lia).
  assert (Hdom : dominated (1, O, rho) T (1, a, b) = true).
  { unfold dominated. rewrite qlt_complete by exact Hb0. cbn [andb].
    destruct (Nat.leb a 0) eqn:Ea; apply Qle_bool_iff; [lra|].
    rewrite Nat.sub_0_r.
    assert (Hz : qn a * rho / (rho - b) <= qn T + 1).
    { apply Qle_trans with (inject_Z z); [apply Qle_ceiling|].
      apply Qle_trans with (qn T); [|lra]. unfold qn, T. rewrite <- Zle_Qle. lia. }
    assert (Hpos : 0 < rho - b) by lra.
    setoid_replace (qn a * rho) with (qn a * rho / (rho - b) * (rho - b)) by (field; lra).
    rewrite (Qmult_comm (rho - b)). apply Qmult_le_compat_r; lra. }
  set (h := (1 - b) / (1 + b)).
  assert (Hh : 0 < h) by (unfold h; apply Qlt_shift_div_l; lra).
  assert (Hrho : rho == / (1 + h)) by (unfold rho, h; field; lra).
  destruct (geometric_small h [tval a b T] Hh eps He) as (N & HN).
  exists (T + N)%nat. intros t Ht.
  replace t with (T + (t - T))%nat by lia. set (s := (t - T)%nat).
  pose proof (ratio_mono 1 O rho 1 a b T s HT1 ltac:(lra) Hdom) as Hm.
  unfold tval at 2 4 in Hm. cbn [pow] in Hm. rewrite pow_add in Hm.
  assert (HrT : 0 < pow rho T) by (apply pow_pos; lra).
  assert (Hx : tval a b (T + s) <= tval a b T * pow rho s).
  { apply (Qmult_le_r _ _ (pow rho T) HrT).
    setoid_replace (tval a b T * pow rho s * pow rho T) with (tval a b T * (1 * (pow rho T * pow rho s))) by ring.
    setoid_replace (tval a b (T + s) * pow rho T) with (tval a b (T + s) * (1 * pow rho T)) by ring. exact Hm. }
  specialize (HN s ltac:(unfold s; lia) 0%nat). rewrite coord_cons_0 in HN.
  rewrite <- Hrho in HN. apply Qle_trans with (tval a b T * pow rho s); [exact Hx|].
  apply Qle_trans with (Qabs (pow rho s * tval a b T)); [|exact HN].
  rewrite Qmult_comm. apply Qle_Qabs.
Qed.

Lemma tail_small p : Forall (fun term => match term with (_, _, b) => 0 < b /\ b < 1 end) p ->
  forall eps, 0 < eps -> exists N, forall t, (N <= t)%nat -> forall k, Qabs (coord (veval p t) k) <= eps.
Proof.
  induction p as [|[[c a] b] p IH]; intros Hp eps He.
  - exists O. intros t _ k. rewrite veval_nil, coord_nil. simpl. lra.
  - inversion Hp as [|? ? Hb Hrest]; subst. cbn beta iota in Hb. destruct Hb as [Hb0 Hb1].
    set (D := qsum (map Qabs c) + 1).
    assert (HD : 0 < D) by (unfold D; pose proof (qsum_abs_nonneg c); lra).
    destruct (term_small a b Hb0 Hb1 (eps / 2 / D)) as (N1 & HN1).
    { apply Qlt_shift_div_l; [exact HD|]. apply Qlt_shift_div_l; lra. }
    destruct (IH Hrest (eps / 2)) as (N2 & HN2); [apply Qlt_shift_div_l; lra|].
    exists (Nat.max N1 N2). intros t Ht k.
    rewrite veval_cons, coord_vadd, coord_vscale.
    specialize (HN1 t ltac:(lia)). specialize (HN2 t ltac:(lia) k).
    assert (Hx : 0 <= tval a b t) by (apply tval_nonneg; lra).
    assert (Hc : Qabs (coord c k) <= D) by (unfold D; pose proof (coord_abs_bound c k); lra).
    assert (H1 : Qabs (tval a b t * coord c k) <= eps / 2).
    { rewrite Qabs_Qmult, (Qabs_pos _ Hx).
      apply Qle_trans with (eps / 2 / D * D).
      - apply Qmult_le_compat_nonneg; split; [exact Hx | exact HN1 | apply Qabs_nonneg | exact Hc].
      - setoid_replace (eps / 2 / D * D) with (eps / 2) by (field; lra). lra. }
    apply Qle_trans with (Qabs (tval a b t * coord c k) + Qabs (coord (veval p t) k)); [apply Qabs_triangle|].
    assert (E2 : eps / 2 + eps / 2 == eps) by field. lra.
Qed.

(** A path's terms are constants (t^0 1^t) or decay (0 < b < 1); its limit is the sum of the constants. *)
Definition constant_term (term : vterm) : bool := match term with (_, a, b) => Nat.eqb a 0 && Qeq_bool b 1 end.
Definition decaying_term (term : vterm) : bool := match term with (_, _, b) => qlt 0 b && qlt b 1 end.
Definition check_limit (p : list vterm) (lim : vec) : bool :=
  forallb (fun term => constant_term term || decaying_term term) p &&
  veqb lim (veval (filter constant_term p) 0).

Lemma veval_filter_split p t : veq (veval p t)
  (vadd (veval (filter constant_term p) t) (veval (filter (fun term => negb (constant_term term)) p) t)).
Proof.
  induction p as [|[[c a] b] p IH]; [intro k; cbn [filter]; rewrite !veval_nil, coord_vadd, !coord_nil; ring|].
  cbn [filter]. destruct (constant_term (c, a, b)); cbn [negb]; rewrite ?veval_cons, IH; intro k;
    rewrite !coord_vadd, ?coord_vscale; ring.
Qed.

Lemma pow_one t : pow 1 t == 1.
Proof. induction t as [|t IH]; cbn [pow]; [reflexivity | rewrite IH; reflexivity]. Qed.

Lemma veval_constants p t : veq (veval (filter constant_term p) t) (veval (filter constant_term p) 0).
Proof.
  induction p as [|[[c a] b] p IH]; [reflexivity|]. cbn [filter].
  destruct (constant_term (c, a, b)) eqn:E; [|exact IH].
  unfold constant_term in E. apply andb_true_iff in E as [Ea Eb]. apply Nat.eqb_eq in Ea. apply Qeq_bool_iff in Eb. subst a.
  rewrite !veval_cons, IH. unfold tval. cbn [pow]. rewrite Eb.
  rewrite (pow_one t). intro k. rewrite !coord_vadd, !coord_vscale. ring.
Qed.

Lemma check_limit_sound p lim : check_limit p lim = true ->
  forall eps, 0 < eps -> exists N, forall t, (N <= t)%nat -> forall k, Qabs (coord (veval p t) k - coord lim k) <= eps.
Proof.
  unfold check_limit. rewrite andb_true_iff, forallb_forall. intros [Hterms Hlim] eps He.
  apply veqb_correct in Hlim.
  assert (Htail : Forall (fun term => match term with (_, _, b) => 0 < b /\ b < 1 end)
                         (filter (fun term => negb (constant_term term)) p)).
  { apply Forall_forall. intros [[c a] b] Hin. apply filter_In in Hin as [Hin Hn].
    specialize (Hterms _ Hin). apply negb_true_iff in Hn. rewrite Hn in Hterms. cbn [orb] in Hterms.
    unfold decaying_term in Hterms. apply andb_true_iff in Hterms as [H1 H2]. split; apply qlt_correct; assumption. }
  destruct (tail_small _ Htail eps He) as (N & HN). exists N. intros t Ht k.
  rewrite (veval_filter_split p t k), coord_vadd, (veval_constants p t k), (Hlim k).
  setoid_replace (coord (veval (filter constant_term p) 0) k +
                  coord (veval (filter (fun term => negb (constant_term term)) p) t) k -
                  coord (veval (filter constant_term p) 0) k)
    with (coord (veval (filter (fun term => negb (constant_term term)) p) t) k) by ring.
  apply HN, Ht.
Qed.

(** ** Increasing lists: the attention set is one, and two with the same members are equal *)
Fixpoint increasing (l : list nat) : bool :=
  match l with
  | a :: ((b :: _) as l') => Nat.ltb a b && increasing l'
  | _ => true
  end.

Lemma increasing_cons a l : increasing (a :: l) = true -> increasing l = true /\ forall x, In x l -> (a < x)%nat.
Proof.
  revert a; induction l as [|b l IH]; intros a H; [split; [reflexivity | intros x []]|].
  cbn [increasing] in H. apply andb_true_iff in H as [Hab Hl]. apply Nat.ltb_lt in Hab.
  split; [exact Hl|]. destruct (IH b Hl) as [_ Hb]. intros x [<-|Hx]; [exact Hab | specialize (Hb x Hx); lia].
Qed.

Lemma increasing_intro a l : increasing l = true -> (forall x, In x l -> (a < x)%nat) -> increasing (a :: l) = true.
Proof.
  intros Hl Hx. destruct l as [|b l]; [reflexivity|]. cbn [increasing]. apply andb_true_iff. split; [|exact Hl].
  apply Nat.ltb_lt, Hx. left. reflexivity.
Qed.

Lemma increasing_filter (p : nat -> bool) l : increasing l = true -> increasing (filter p l) = true.
Proof.
  induction l as [|a l IH]; intro H; [reflexivity|]. apply increasing_cons in H as [Hl Ha].
  cbn [filter]. destruct (p a); [|apply IH, Hl]. apply increasing_intro; [apply IH, Hl|].
  intros x Hx. apply filter_In in Hx as [Hx _]. apply Ha, Hx.
Qed.

Lemma increasing_seq s n : increasing (seq s n) = true.
Proof.
  revert s; induction n as [|n IH]; intro s; [reflexivity|]. cbn [seq]. apply increasing_intro; [apply IH|].
  intros x Hx. apply in_seq in Hx. lia.
Qed.

Lemma increasing_eq l1 l2 : increasing l1 = true -> increasing l2 = true -> (forall x, In x l1 <-> In x l2) -> l1 = l2.
Proof.
  revert l2; induction l1 as [|a l1 IH]; intros [|b l2] H1 H2 H.
  - reflexivity.
  - exfalso. apply (proj2 (H b)). left. reflexivity.
  - exfalso. apply (proj1 (H a)). left. reflexivity.
  - apply increasing_cons in H1 as [H1 Ha]. apply increasing_cons in H2 as [H2 Hb].
    assert (Eab : a = b).
    { destruct (proj1 (H a) (or_introl eq_refl)) as [E|Hin]; [congruence|].
      destruct (proj2 (H b) (or_introl eq_refl)) as [E|Hin']; [congruence|].
      specialize (Ha b Hin'). specialize (Hb a Hin). lia. }
    subst b. f_equal. apply IH; [exact H1 | exact H2|]. intro x. split; intro Hx.
    + destruct (proj1 (H x) (or_intror Hx)) as [E|E]; [|exact E]. subst x. specialize (Ha a Hx). lia.
    + destruct (proj2 (H x) (or_intror Hx)) as [E|E]; [|exact E]. subst x. specialize (Hb a Hx). lia.
Qed.

Lemma attention_increasing M Z i : increasing (attention M Z i) = true.
Proof. rewrite attention_filter. apply increasing_filter, increasing_seq. Qed.

(** ** A segment: from layer k on, token j follows the path ZH_j and attends to F_j *)
Definition path_of (ZH : list (list vterm)) (v : nat) : list vterm := nth v ZH [].

(** The right-hand side of the update rule on paths: (zh_j + alpha mean_F zh_v) / (1 + alpha). *)
Definition path_update (alpha : Q) (zj : list vterm) (ZH : list (list vterm)) (F : list nat) : list vterm :=
  tscale (/ (1 + alpha)) (zj ++ tscale (alpha * (1 # Pos.of_nat (length F))) (flat_map (path_of ZH) F)).

Definition check_token_segment (c : config) (Z : list vec) (ZH : list (list vterm)) (j : nat) (F : list nat)
           (Ts : list nat) : bool :=
  let n := length Z in
  let v0 := hd O F in
  (* s_jv(t) - s_jv0(t) for v in F and s_jv0(t) - s_jw(t) for every w, s_jv0 computed once *)
  let s0 := score_terms (A c) (path_of ZH j) (path_of ZH v0) in
  negb (list_eqb F []) && increasing F && forallb (fun v => Nat.ltb v n) F &&
  veqb (veval (path_of ZH j) 0) (zpos Z j) &&
  vzero (shift (path_of ZH j) ++ tscale (-1) (path_update (alpha c) (path_of ZH j) ZH F)) &&
  forallb (fun v => szero (score_terms (A c) (path_of ZH j) (path_of ZH v) ++ sscale (-1) s0)) F &&
  forallb (fun w => mem w F || positive_always (drop_zeros (snormal (s0 ++ sscale (-1) (score_terms (A c) (path_of ZH j) (path_of ZH w))))) (nth w Ts O))
          (seq 0 n).

Definition check_segment (c : config) (Z : list vec) (ZH : list (list vterm)) (sets : list (list nat))
           (Ts : list (list nat)) : bool :=
  Nat.eqb (length ZH) (length Z) && Nat.eqb (length sets) (length Z) &&
  forallb (fun j => check_token_segment c Z ZH j (nth j sets []) (nth j Ts [])) (seq 0 (length Z)).

Lemma veval_flat_map ZH F t : veq (veval (flat_map (path_of ZH) F) t) (vsum (map (fun v => veval (path_of ZH v) t) F)).
Proof.
  induction F as [|v F IH]; [reflexivity|]. cbn [flat_map map vsum fold_right].
  rewrite veval_app, IH. reflexivity.
Qed.

Lemma veval_path_update a zj ZH F t :
  veq (veval (path_update a zj ZH F) t) (update a (veval zj t) (mean (map (fun v => veval (path_of ZH v) t) F))).
Proof.
  unfold path_update, update, mean. rewrite veval_tscale, veval_app, veval_tscale, veval_flat_map, map_length.
  intro k. rewrite !coord_vscale, !coord_vadd, !coord_vscale. ring.
Qed.

Lemma vzero_identity p q : vzero (p ++ tscale (-1) q) = true -> forall t, veq (veval p t) (veval q t).
Proof.
  intros H t k. pose proof (vzero_correct _ H t k) as E.
  rewrite (veval_app p (tscale (-1) q) t k), coord_vadd, (veval_tscale (-1) q t k), coord_vscale, coord_nil in E. lra.
Qed.

Lemma seval_gap M p q r t : seval (score_terms M p q ++ sscale (-1) (score_terms M p r)) t ==
  dot (matvec M (veval p t)) (veval q t) - dot (matvec M (veval p t)) (veval r t).
Proof. rewrite seval_app, seval_sscale, !seval_score_terms. ring. Qed.

Section Segment.
Variables (c : config) (k0 : nat) (ZH : list (list vterm)) (sets : list (list nat)) (Ts : list (list nat)).
Hypothesis Ha : 0 < alpha c.
Hypothesis Hcheck : check_segment c (layers c k0) ZH sets Ts = true.
Notation n := (ntokens c).

Lemma segment_token j : (j < n)%nat -> check_token_segment c (layers c k0) ZH j (nth j sets []) (nth j Ts []) = true.
Proof.
  intro Hj. unfold check_segment in Hcheck. rewrite !andb_true_iff, forallb_forall in Hcheck.
  apply Hcheck, in_seq. rewrite length_layers. lia.
Qed.

(** At a layer where every token is at its path's value, every attention set is the segment's. *)
Lemma segment_sets Z t : length Z = n -> (forall j, (j < n)%nat -> veq (zpos Z j) (veval (path_of ZH j) t)) ->
  forall j, (j < n)%nat -> attention (A c) Z j = nth j sets [].
Proof.
  intros Hl Hpos j Hj. pose proof (segment_token j Hj) as H. unfold check_token_segment in H. cbv zeta in H.
  rewrite length_layers, !andb_true_iff, !forallb_forall in H.
  destruct H as ((((((Hne & Hinc) & Hlt) & _) & _) & Hties) & Hstrict).
  set (F := nth j sets []) in *. set (v0 := hd O F) in *.
  assert (HF : F <> []) by (intro E; rewrite E in Hne; discriminate).
  assert (Hv0 : In v0 F) by (destruct F; [congruence | left; reflexivity]).
  assert (HFn : forall v, In v F -> (v < n)%nat) by (intros v Hv; apply Nat.ltb_lt, Hlt, Hv).
  set (S l := dot (matvec (A c) (veval (path_of ZH j) t)) (veval (path_of ZH l) t)).
  assert (Hsc : forall l, (l < n)%nat -> score (A c) Z j l == S l).
  { intros l Hl'. unfold score, S. rewrite (Hpos j Hj), (Hpos l Hl'). reflexivity. }
  assert (Htie : forall v, In v F -> S v == S v0).
  { intros v Hv. pose proof (szero_correct _ (Hties v Hv) t) as E. rewrite seval_gap in E. unfold S. lra. }
  assert (Hgap : forall w, (w < n)%nat -> ~ In w F -> S w < S v0).
  { intros w Hw Hn. assert (Hin : In w (seq 0 n)) by (apply in_seq; lia). specialize (Hstrict w Hin).
    destruct (mem w F) eqn:Em; [apply mem_In in Em; contradiction|]. cbn [orb] in Hstrict.
    pose proof (positive_always_sound _ _ Hstrict t) as P. rewrite seval_drop_zeros, seval_snormal, seval_gap in P.
    unfold S. lra. }
  assert (Htop : top (A c) Z j == S v0).
  { apply top_is.
    - exists v0. rewrite Hl. split; [apply HFn, Hv0 | apply Hsc, HFn, Hv0].
    - intros l Hl'. rewrite Hl in Hl'. rewrite (Hsc l Hl'). destruct (in_dec Nat.eq_dec l F) as [Hv|Hv].
      + rewrite (Htie l Hv). apply Qle_refl.
      + apply Qlt_le_weak, Hgap; assumption. }
  apply increasing_eq; [apply attention_increasing | exact Hinc|]. intro l.
  rewrite (mem_attention_top _ _ _ _ _ Htop), Hl. split.
  - intros [Hl' E]. destruct (in_dec Nat.eq_dec l F) as [Hv|Hv]; [exact Hv|]. exfalso.
    pose proof (Hgap l Hl' Hv) as G. rewrite <- (Hsc l Hl'), E in G. apply (Qlt_irrefl _ G).
  - intro Hv. split; [apply HFn, Hv|]. rewrite (Hsc l (HFn l Hv)). apply Htie, Hv.
Qed.

Theorem segment_sound : forall t,
  (forall j, (j < n)%nat -> veq (position c (k0 + t) j) (veval (path_of ZH j) t)) /\
  (forall j, (j < n)%nat -> attends c (k0 + t) j = nth j sets []).
Proof.
  assert (Hlen : forall t, length (layers c (k0 + t)) = n) by (intro; apply length_layers).
  assert (Hpos : forall t, (forall j, (j < n)%nat -> veq (position c (k0 + t) j) (veval (path_of ZH j) t))).
  { induction t as [|t IH].
    - intros j Hj. rewrite Nat.add_0_r. pose proof (segment_token j Hj) as H. unfold check_token_segment in H.
      rewrite !andb_true_iff in H. destruct H as ((((((_ & _) & _) & H0) & _) & _) & _).
      apply veqb_correct in H0. symmetry. exact H0.
    - intros j Hj. rewrite Nat.add_succ_r. unfold position. cbn [layers].
      change (nth j (layer c (layers c (k0 + t))) []) with (zpos (layer c (layers c (k0 + t))) j).
      rewrite zpos_layer by (rewrite Hlen; exact Hj).
      rewrite (segment_sets (layers c (k0 + t)) t (Hlen t) IH j Hj).
      pose proof (segment_token j Hj) as H. unfold check_token_segment in H.
      rewrite length_layers, !andb_true_iff in H. destruct H as ((((((_ & _) & Hlt) & _) & Hrec) & _) & _).
      rewrite forallb_forall in Hlt.
      transitivity (veval (shift (path_of ZH j)) t); [|apply veval_shift].
      transitivity (veval (path_update (alpha c) (path_of ZH j) ZH (nth j sets [])) t);
        [|symmetry; apply (vzero_identity _ _ Hrec t)].
      transitivity (update (alpha c) (veval (path_of ZH j) t)
                     (mean (map (fun v => veval (path_of ZH v) t) (nth j sets []))));
        [|symmetry; apply veval_path_update].
      apply update_proper; [apply IH, Hj|]. apply mean_ext. intros v Hv. apply IH, Nat.ltb_lt, Hlt, Hv. }
  intro t. split; [apply Hpos|]. intros j Hj. unfold attends.
  apply (segment_sets _ t (Hlen t) (Hpos t) j Hj).
Qed.
End Segment.

(** ** Certificates with closed-form paths *)
Record segment := { seg_layer : nat; seg_paths : list (list vterm); seg_sets : list (list nat);
                    seg_thresholds : list (list nat) }.

Definition check_path_fates (fates : list fate) (limits : list vec) (seg : segment) : bool :=
  forallb (fun i => match nth i fates (Leader 0) with
                    | Path k F => Nat.eqb k (seg_layer seg) && list_eqb F (nth i (seg_sets seg) []) &&
                                  negb (list_eqb F [i]) && check_limit (path_of (seg_paths seg) i) (nth i limits [])
                    | _ => true
                    end) (seq 0 (length fates)).

Definition check_with_paths (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec)
           (seg : segment) : bool :=
  check_core c fates limits K ZK &&
  check_segment c (layers c (seg_layer seg)) (seg_paths seg) (seg_sets seg) (seg_thresholds seg) &&
  check_path_fates fates limits seg.

Theorem paths_sound c fates limits K ZK seg :
  check_with_paths c fates limits K ZK seg = true -> Outcome c fates limits K ZK.
Proof.
  unfold check_with_paths. rewrite !andb_true_iff. intros ((Hcore & Hseg) & Hpf).
  destruct (check_parts c fates limits K ZK Hcore) as (Ha & Hlen & _).
  apply (core_sound _ _ _ _ _ Hcore). intros i k F Hi E.
  unfold check_path_fates in Hpf. rewrite forallb_forall in Hpf.
  assert (Hin : In i (seq 0 (length fates))) by (apply in_seq; unfold ntokens in *; lia).
  specialize (Hpf i Hin). rewrite E, !andb_true_iff in Hpf.
  destruct Hpf as (((Hk & HF) & Hne) & Hlim). apply Nat.eqb_eq in Hk. apply list_eqb_correct in HF. subst k.
  pose proof (segment_sound c (seg_layer seg) (seg_paths seg) (seg_sets seg) (seg_thresholds seg) Hseg) as S.
  split; [|split].
  - intro t. rewrite HF. apply (proj2 (S t) i Hi).
  - intro E'. rewrite E' in Hne. unfold list_eqb in Hne. destruct (list_eq_dec Nat.eq_dec [i] [i]); [discriminate | congruence].
  - intros eps He. destruct (check_limit_sound _ _ Hlim eps He) as (N & HN).
    exists (seg_layer seg + N)%nat. intros k' Hk' b.
    replace k' with (seg_layer seg + (k' - seg_layer seg))%nat by lia.
    rewrite ((proj1 (S (k' - seg_layer seg)%nat)) i Hi b). apply HN. lia.
Qed.
