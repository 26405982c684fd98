(** * The certificate checker and its soundness theorem.

    [check c fates limits K ZK] evaluates the layers Z^0 .. Z^Kmax of the model of
    Statement.v and checks a D7 certificate: each token a leader from its first leading
    layer, a fixed token, or a token locked onto a set F of fixed tokens (docs/theory.md D3,
    D7, §8), each token's limit, and the positions ZK of layer K. [certificate_sound] says
    that [check = true] implies [Outcome], for every later layer. *)

From Coq Require Import QArith Qabs Qround List Lia Lqa Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra Dynamics.
Import ListNotations.
Open Scope Q_scope.

(** ** The generic facts D1 and D3 *)
Theorem D1 : D1_statement.
Proof.
  intros c k i Ha Hi. unfold position. change (layers c (S k)) with (layer c (layers c k)).
  destruct (layer_convex c Ha (layers c k) i) as (ws & H1 & H2 & H3); [rewrite length_layers; exact Hi|].
  rewrite length_layers in H1. exists ws. auto.
Qed.

Theorem D3 : D3_statement.
Proof.
  intros c k i Ha Hi Hl. unfold leads, attends, position in *. cbn [layers].
  apply (leader_step c Ha (layers c k) i); [rewrite length_layers; exact Hi | exact Hl].
Qed.

(** ** The checker *)
Definition fate_layer (f : fate) : nat := match f with Leader k | Fixed k _ | Locked k _ => k end.
Definition leader_fate (f : fate) : bool := match f with Leader _ => true | _ => false end.

(** Token j is fixed (a leader or a fixed token) by layer k. *)
Definition fixed_by (fates : list fate) (k j : nat) : bool :=
  match nth j fates (Locked 0 []) with
  | Leader kj | Fixed kj _ => Nat.leb kj k
  | Locked _ _ => false
  end.

Definition mem (j : nat) (s : list nat) : bool := existsb (Nat.eqb j) s.
Definition same_setb (s t : list nat) : bool := forallb (fun j => mem j t) s && forallb (fun j => mem j s) t.
Definition list_eqb (s t : list nat) : bool := if list_eq_dec Nat.eq_dec s t then true else false.

(** The lock's scores (D7): against A m_F every token of F scores the same, and none more. *)
Definition lock_scores (c : config) (Z : list vec) (F : list nat) : bool :=
  let w := matvec (A c) (mean (map (zpos Z) F)) in
  let T := dot w (zpos Z (hd 0%nat F)) in
  forallb (fun v => Qeq_bool (dot w (zpos Z v)) T) F && forallb (fun z => Qle_bool (dot w z) T) Z.

(** The conditions of token i with fate f at layer k, with C its attention set, z its
    position and p its limit: the fate holds from its layer on. *)
Definition establishes (c : config) (fates : list fate) (k : nat) (Z : list vec)
                       (i : nat) (f : fate) (C : list nat) (z p : vec) : bool :=
  match f with
  | Leader ki => if Nat.eqb ki k then list_eqb C [i] && veqb p z else true
  | Fixed ki G =>
      if Nat.eqb ki k then
        same_setb C (i :: G) && negb (mem i G) && negb (list_eqb G []) &&
        forallb (fixed_by fates k) C && veqb z (mean (map (zpos Z) C)) && veqb p z
      else true
  | Locked ki F =>
      if Nat.eqb ki k then
        list_eqb C F && negb (mem i F) && forallb (fixed_by fates k) F &&
        lock_scores c Z F && veqb p (mean (map (zpos Z) F))
      else true
  end.

(** D7 (b) for token j at layer k with G = C minus j: the fixed tokens G (fixed by layer k) and z their mean. *)
Definition fixed_condition (fates : list fate) (k : nat) (Z : list vec) (j : nat) (C : list nat) (z : vec) : bool :=
  let G := filter (fun l => negb (Nat.eqb l j)) C in
  mem j C && negb (list_eqb G []) && forallb (fixed_by fates k) G && veqb z (mean (map (zpos Z) G)).

(** The locking condition (D7) for token i at layer k onto its attention set C. *)
Definition lock_condition_b (c : config) (fates : list fate) (k : nat) (Z : list vec) (i : nat) (C : list nat) : bool :=
  negb (mem i C) && forallb (fixed_by fates k) C && lock_scores c Z C.

(** Each fate's layer is the first at which its condition holds (the certificate's canonical
    form, docs/certificates.md): checked at the layer before. The soundness theorem does not
    need it; it makes the checker refuse a certificate that is true but not canonical. *)
Definition first_at (c : config) (fates : list fate) (k : nat) (Z : list vec)
                    (i : nat) (f : fate) (C : list nat) (z : vec) : bool :=
  match f with
  | Leader ki => if Nat.eqb ki (S k) then negb (list_eqb C [i]) else true
  | Fixed ki _ => if Nat.eqb ki (S k) then negb (fixed_condition fates k Z i C z) else true
  | Locked ki _ => if Nat.eqb ki (S k) then negb (lock_condition_b c fates k Z i C) else true
  end.

Definition check_token (c : config) (fates : list fate) (k : nat) (Z : list vec)
                       (i : nat) (f : fate) (C : list nat) (z p : vec) : bool :=
  establishes c fates k Z i f C z p && first_at c fates k Z i f C z.

Fixpoint check_tokens (c : config) (fates : list fate) (k : nat) (Z : list vec) (i : nat)
         (fs : list fate) (sets : list (list nat)) (zs ps : list vec) : bool :=
  match fs with
  | [] => true
  | f :: fs' =>
      check_token c fates k Z i f (hd [] sets) (hd [] zs) (hd [] ps) &&
      check_tokens c fates k Z (S i) fs' (tl sets) (tl zs) (tl ps)
  end.

Fixpoint veqb_all (Z Z' : list vec) : bool :=
  match Z, Z' with
  | z :: Z1, z' :: Z1' => veqb z z' && veqb_all Z1 Z1'
  | [], [] => true
  | _, _ => false
  end.

Definition check_layer (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec)
                       (k : nat) (Z : list vec) (sets : list (list nat)) : bool :=
  check_tokens c fates k Z 0 fates sets Z limits && (if Nat.eqb k K then veqb_all Z ZK else true).

(** Layers k .. k + fuel, each computed once with its attention sets. *)
Fixpoint run (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec)
         (k fuel : nat) (Z : list vec) : bool :=
  let sets := attention_sets c Z in
  if check_layer c fates limits K ZK k Z sets then
    match fuel with
    | O => true
    | S fuel' => run c fates limits K ZK (S k) fuel' (step c Z sets)
    end
  else false.

Definition last_layer (fates : list fate) (K : nat) : nat := fold_right Nat.max K (map fate_layer fates).

Definition check (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec) : bool :=
  negb (Qle_bool (alpha c) 0) && Nat.eqb (length fates) (ntokens c) && Nat.eqb (length limits) (ntokens c) &&
  existsb leader_fate fates && run c fates limits K ZK 0 (last_layer fates K) (tokens c).

(** ** Reading the checker's answers *)
Lemma mem_In j s : mem j s = true <-> In j s.
Proof.
  unfold mem. rewrite existsb_exists. split.
  - intros (x & Hx & E). apply Nat.eqb_eq in E. subst. exact Hx.
  - intro H. exists j. split; [exact H | apply Nat.eqb_refl].
Qed.
Lemma same_setb_correct s t : same_setb s t = true -> same_set s t.
Proof.
  unfold same_setb. rewrite andb_true_iff, !forallb_forall. intros [H1 H2] j.
  split; intro H; apply mem_In; auto.
Qed.
Lemma list_eqb_correct s t : list_eqb s t = true <-> s = t.
Proof. unfold list_eqb. destruct (list_eq_dec Nat.eq_dec s t); split; congruence. Qed.

Lemma check_tokens_nth c fates k Z j fs sets zs ps :
  check_tokens c fates k Z j fs sets zs ps = true ->
  forall i, (i < length fs)%nat ->
  check_token c fates k Z (j + i) (nth i fs (Leader 0)) (nth i sets []) (nth i zs []) (nth i ps []) = true.
Proof.
  revert j sets zs ps; induction fs as [|f fs IH]; intros j sets zs ps H i Hi; [simpl in Hi; lia|].
  cbn [check_tokens] in H. apply andb_true_iff in H as [H1 H2].
  destruct i as [|i].
  - rewrite Nat.add_0_r. destruct sets, zs, ps; exact H1.
  - replace (j + S i)%nat with (S j + i)%nat by lia. cbn [nth].
    specialize (IH _ _ _ _ H2 i). cbn [length] in Hi.
    assert (Enil : forall T (i : nat) (d : T), nth i [] d = d) by (intros T0 [|i0] d; reflexivity).
    destruct sets, zs, ps; cbn [tl nth] in *; rewrite ?Enil in *; apply IH; lia.
Qed.

Lemma veqb_all_correct Z Z' : veqb_all Z Z' = true -> length Z = length Z' /\ forall i, veq (nth i Z []) (nth i Z' []).
Proof.
  revert Z'; induction Z as [|z Z IH]; intros [|z' Z'] H; try discriminate.
  - split; [reflexivity | intros [|i]; reflexivity].
  - cbn [veqb_all] in H. apply andb_true_iff in H as [H1 H2]. destruct (IH _ H2) as [Hl Hn].
    split; [cbn [length]; congruence|]. intros [|i]; [apply veqb_correct, H1 | apply Hn].
Qed.

Lemma run_sound c fates limits K ZK fuel : forall k,
  run c fates limits K ZK k fuel (layers c k) = true ->
  forall k', (k <= k' <= k + fuel)%nat ->
  check_layer c fates limits K ZK k' (layers c k') (attention_sets c (layers c k')) = true.
Proof.
  induction fuel as [|fuel IH]; intros k H k' Hk; cbn [run] in H;
    destruct (check_layer c fates limits K ZK k (layers c k) (attention_sets c (layers c k))) eqn:E; try discriminate.
  - replace k' with k by lia. exact E.
  - destruct (Nat.eq_dec k k') as [<-|Hne]; [exact E|].
    apply (IH (S k)); [exact H | lia].
Qed.

(** ** Geometric convergence, without real numbers *)
Lemma pow_inv_mul a t : 0 < a -> pow (/ (1 + a)) t * pow (1 + a) t == 1.
Proof.
  intro Ha. induction t as [|t IH]; cbn [pow]; [reflexivity|].
  setoid_replace (/ (1 + a) * pow (/ (1 + a)) t * ((1 + a) * pow (1 + a) t))
    with ((/ (1 + a) * (1 + a)) * (pow (/ (1 + a)) t * pow (1 + a) t)) by ring.
  rewrite IH, Qmult_1_r, Qmult_comm, Qmult_inv_r by apply (one_plus_nonzero a Ha). reflexivity.
Qed.

Lemma inject_nat_nonneg t : 0 <= inject_Z (Z.of_nat t).
Proof. unfold inject_Z, Qle; simpl. lia. Qed.

Lemma bernoulli a t : 0 <= a -> 1 + inject_Z (Z.of_nat t) * a <= pow (1 + a) t.
Proof.
  intro Ha. induction t as [|t IH]; cbn [pow].
  - unfold inject_Z. simpl Z.of_nat. setoid_replace (1 + (0 # 1) * a) with 1 by ring. apply Qle_refl.
  - rewrite Nat2Z.inj_succ, <- Z.add_1_l, inject_Z_plus. change (inject_Z 1) with 1.
    apply Qle_trans with ((1 + a) * (1 + inject_Z (Z.of_nat t) * a)).
    + setoid_replace ((1 + a) * (1 + inject_Z (Z.of_nat t) * a))
        with (1 + (1 + inject_Z (Z.of_nat t)) * a + inject_Z (Z.of_nat t) * (a * a)) by ring.
      rewrite <- (Qplus_0_r (1 + (1 + inject_Z (Z.of_nat t)) * a)) at 1.
      apply Qplus_le_r. apply Qmult_le_0_compat; [apply inject_nat_nonneg | apply Qmult_le_0_compat; exact Ha].
    + apply Qmult_le_l; [|exact IH].
      apply Qlt_le_trans with 1; [reflexivity|]. rewrite <- (Qplus_0_r 1) at 1. apply Qplus_le_r, Ha.
Qed.

Lemma inv_one_plus_nonneg a : 0 < a -> 0 <= / (1 + a).
Proof. intro Ha. apply Qlt_le_weak, Qinv_lt_0_compat, one_plus_pos, Ha. Qed.

Lemma pow_bound a t : 0 < a -> pow (/ (1 + a)) t * (1 + inject_Z (Z.of_nat t) * a) <= 1.
Proof.
  intro Ha. apply Qle_trans with (pow (/ (1 + a)) t * pow (1 + a) t); [|rewrite (pow_inv_mul a t Ha); apply Qle_refl].
  apply Qmult_le_compat_nonneg; split.
  - apply pow_nonneg, inv_one_plus_nonneg, Ha.
  - apply Qle_refl.
  - apply Qle_trans with 1; [discriminate|]. rewrite <- (Qplus_0_r 1) at 1. apply Qplus_le_r.
    apply Qmult_le_0_compat; [apply inject_nat_nonneg | apply Qlt_le_weak, Ha].
  - apply bernoulli, Qlt_le_weak, Ha.
Qed.

Lemma qsum_abs_nonneg x : 0 <= qsum (map Qabs x).
Proof.
  unfold qsum. induction x as [|q x IH]; cbn [map fold_right]; [apply Qle_refl|].
  pose proof (Qabs_nonneg q). lra.
Qed.

Lemma coord_abs_bound x b : Qabs (coord x b) <= qsum (map Qabs x).
Proof.
  revert b; induction x as [|q x IH]; intro b.
  - rewrite coord_nil. apply Qle_refl.
  - unfold qsum in *. cbn [map fold_right]. destruct b as [|b].
    + rewrite coord_cons_0. pose proof (qsum_abs_nonneg x). unfold qsum in *. lra.
    + rewrite coord_cons_S. pose proof (IH b). pose proof (Qabs_nonneg q). lra.
Qed.

(** r^t d tends to 0 for r = 1/(1+a), coordinate by coordinate and uniformly. *)
Lemma geometric_small a d : 0 < a -> forall eps, 0 < eps -> exists T, forall t, (T <= t)%nat ->
  forall b, Qabs (pow (/ (1 + a)) t * coord d b) <= eps.
Proof.
  intros Ha eps He.
  set (D := qsum (map Qabs d)).
  assert (Hea : 0 < eps * a) by (apply Qmult_lt_0_compat; auto).
  exists (Z.to_nat (Qceiling (D / (eps * a)))). intros t Ht b.
  set (r := pow (/ (1 + a)) t).
  assert (Hr : 0 <= r) by (apply pow_nonneg, inv_one_plus_nonneg, Ha).
  assert (Ht' : D / (eps * a) <= inject_Z (Z.of_nat t)).
  { apply Qle_trans with (inject_Z (Qceiling (D / (eps * a)))); [apply Qle_ceiling|].
    rewrite <- Zle_Qle. lia. }
  assert (HD : D <= eps * (1 + inject_Z (Z.of_nat t) * a)).
  { assert (Hne : ~ eps * a == 0) by (intro E; rewrite E in Hea; discriminate).
    pose proof (Qmult_le_compat_r _ _ (eps * a) Ht' (Qlt_le_weak _ _ Hea)) as H1.
    rewrite Qmult_comm, (Qmult_div_r _ _ Hne) in H1.
    setoid_replace (eps * (1 + inject_Z (Z.of_nat t) * a)) with (eps + inject_Z (Z.of_nat t) * (eps * a)) by ring.
    lra. }
  rewrite Qabs_Qmult, (Qabs_pos r Hr).
  apply Qle_trans with (D * r).
  { rewrite Qmult_comm. apply Qmult_le_compat_r; [apply coord_abs_bound | exact Hr]. }
  apply Qle_trans with (eps * (1 + inject_Z (Z.of_nat t) * a) * r); [apply Qmult_le_compat_r; auto|].
  setoid_replace (eps * (1 + inject_Z (Z.of_nat t) * a) * r) with (eps * (r * (1 + inject_Z (Z.of_nat t) * a))) by ring.
  rewrite <- (Qmult_1_r eps) at 2. apply Qmult_le_l; [exact He | apply pow_bound, Ha].
Qed.

Lemma geometric_step a z m zt t : 0 < a ->
  veq zt (vadd m (vscale (pow (/ (1 + a)) t) (vsub z m))) ->
  veq (update a zt m) (vadd m (vscale (pow (/ (1 + a)) (S t)) (vsub z m))).
Proof.
  intros Ha H b. rewrite coord_update, (H b), !coord_vadd, !coord_vscale, !coord_vsub.
  cbn [pow]. field. apply one_plus_nonzero, Ha.
Qed.

(** ** Soundness *)
Section Soundness.
Variables (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec).
Hypothesis Hcheck : check c fates limits K ZK = true.

Notation n := (ntokens c).
Notation Kmax := (last_layer fates K).
Notation fate_of i := (nth i fates (Leader 0)).
Notation Fx k := (fixed_by fates k).

Lemma check_parts : 0 < alpha c /\ length fates = n /\ length limits = n /\
  existsb leader_fate fates = true /\ run c fates limits K ZK 0 Kmax (tokens c) = true.
Proof.
  unfold check in Hcheck. rewrite !andb_true_iff, !Nat.eqb_eq in Hcheck.
  destruct Hcheck as ((((H1 & H2) & H3) & H4) & H5). repeat split; auto.
  apply negb_true_iff in H1. apply Qnot_le_lt. intro H. apply Qle_bool_iff in H. congruence.
Qed.

Lemma Ha : 0 < alpha c.
Proof. apply check_parts. Qed.
Lemma Hlen : length fates = n.
Proof. apply check_parts. Qed.

Lemma layers_length k : length (layers c k) = n.
Proof. apply length_layers. Qed.

Lemma fate_layer_le i : (i < n)%nat -> (fate_layer (fate_of i) <= Kmax)%nat.
Proof.
  intro Hi. unfold last_layer.
  assert (Hin : In (fate_layer (fate_of i)) (map fate_layer fates)) by (apply in_map, nth_In; rewrite Hlen; exact Hi).
  generalize dependent (map fate_layer fates). intros l Hl. induction l as [|x l IH]; [destruct Hl|].
  cbn [fold_right]. destruct Hl as [<-|Hl]; [lia | specialize (IH Hl); lia].
Qed.

Lemma K_le : (K <= Kmax)%nat.
Proof. unfold last_layer. induction (map fate_layer fates); cbn [fold_right]; lia. Qed.

Lemma layer_ok k : (k <= Kmax)%nat ->
  check_layer c fates limits K ZK k (layers c k) (attention_sets c (layers c k)) = true.
Proof.
  intro Hk. destruct check_parts as (_ & _ & _ & _ & H).
  apply (run_sound c fates limits K ZK Kmax 0); [exact H | lia].
Qed.

Lemma token_ok k i : (k <= Kmax)%nat -> (i < n)%nat ->
  check_token c fates k (layers c k) i (fate_of i) (attends c k i) (position c k i) (nth i limits []) = true.
Proof.
  intros Hk Hi. pose proof (layer_ok k Hk) as H. unfold check_layer in H.
  apply andb_true_iff in H as [H _].
  pose proof (check_tokens_nth _ _ _ _ _ _ _ _ _ H i) as Ht. rewrite Hlen in Ht.
  specialize (Ht Hi). rewrite nth_attention_sets in Ht by (rewrite layers_length; exact Hi). exact Ht.
Qed.

Lemma token_establishes k i : (k <= Kmax)%nat -> (i < n)%nat ->
  establishes c fates k (layers c k) i (fate_of i) (attends c k i) (position c k i) (nth i limits []) = true.
Proof. intros Hk Hi. pose proof (token_ok k i Hk Hi) as H. apply andb_true_iff in H. apply H. Qed.

Lemma token_first k i : (k <= Kmax)%nat -> (i < n)%nat ->
  first_at c fates k (layers c k) i (fate_of i) (attends c k i) (position c k i) = true.
Proof. intros Hk Hi. pose proof (token_ok k i Hk Hi) as H. apply andb_true_iff in H. apply H. Qed.

Lemma fixed_by_mono k k' j : Fx k j = true -> (k <= k')%nat -> Fx k' j = true.
Proof.
  unfold fixed_by. destruct (nth j fates (Locked 0 [])); intros H Hk; try discriminate;
  apply Nat.leb_le in H; apply Nat.leb_le; lia.
Qed.

Lemma fate_of_fixed_by j : (j < n)%nat -> nth j fates (Locked 0 []) = fate_of j.
Proof. intro Hj. apply nth_indep. rewrite Hlen. exact Hj. Qed.

(** A token that becomes fixed at layer k (a leader or a fixed token) meets the condition of
    a fixed set at layer k. *)
Lemma established k j : (j < n)%nat -> Fx k j = true -> fate_layer (fate_of j) = k ->
  (forall l, In l (attends c k j) -> Fx k l = true) /\
  veq (position c k j) (mean (map (zpos (layers c k)) (attends c k j))).
Proof.
  intros Hj HF Hk. pose proof (token_establishes k j) as H.
  assert (Hk' : (k <= Kmax)%nat) by (rewrite <- Hk; apply fate_layer_le, Hj).
  specialize (H Hk' Hj). unfold fixed_by in HF. rewrite fate_of_fixed_by in HF by exact Hj.
  destruct (fate_of j) as [kj|kj G|kj F] eqn:E; cbn [fate_layer] in Hk; subst kj; try discriminate.
  - cbn [establishes] in H. rewrite Nat.eqb_refl in H.
    apply andb_true_iff in H as [H _]. apply list_eqb_correct in H.
    rewrite H. split.
    + intros l [<-|[]]. unfold fixed_by. rewrite fate_of_fixed_by, E by exact Hj. apply Nat.leb_refl.
    + cbn [map]. symmetry. apply mean_single.
  - cbn [establishes] in H. rewrite Nat.eqb_refl in H. rewrite !andb_true_iff in H.
    destruct H as (((((_ & _) & _) & Hsub) & Hm) & _). split.
    + rewrite forallb_forall in Hsub. exact Hsub.
    + apply veqb_correct, Hm.
Qed.

Lemma established_lock k i F : (i < n)%nat -> fate_of i = Locked k F ->
  lock_condition c (Fx k) (layers c k) i F.
Proof.
  intros Hi E. pose proof (token_establishes k i) as H.
  assert (Hk' : (k <= Kmax)%nat) by (replace k with (fate_layer (fate_of i)) by (rewrite E; reflexivity); apply fate_layer_le, Hi).
  specialize (H Hk' Hi). rewrite E in H. cbn [establishes] in H. rewrite Nat.eqb_refl, !andb_true_iff in H.
  destruct H as ((((Hatt & _) & Hsub) & Hsc) & _).
  apply list_eqb_correct in Hatt. rewrite forallb_forall in Hsub.
  unfold lock_scores in Hsc. rewrite andb_true_iff, !forallb_forall in Hsc. destruct Hsc as [Hs1 Hs2].
  split; [rewrite layers_length; exact Hi|]. split; [exact Hatt|]. split; [exact Hsub|].
  eexists. split.
  - intros v Hv. apply Qeq_bool_iff, Hs1, Hv.
  - intros l Hl. apply Qle_bool_iff, Hs2. apply nth_In, Hl.
Qed.

(** The invariant of every layer: the fixed tokens form a fixed set and every token locked by
    then is still locked. *)
Definition invariant (k : nat) : Prop :=
  fixed_set c (Fx k) (layers c k) /\
  forall i kl F, (i < n)%nat -> fate_of i = Locked kl F -> (kl <= k)%nat -> lock_condition c (Fx k) (layers c k) i F.

Lemma newly_fixed k j : (j < n)%nat -> Fx (S k) j = true -> Fx k j = false -> fate_layer (fate_of j) = S k.
Proof.
  intros Hj H1 H2. unfold fixed_by in H1, H2. rewrite fate_of_fixed_by in H1, H2 by exact Hj.
  destruct (fate_of j); try discriminate; cbn [fate_layer];
  apply Nat.leb_le in H1; apply Nat.leb_nle in H2; lia.
Qed.

Lemma invariant_0 : invariant 0.
Proof.
  split.
  - intros j Hj HF. rewrite layers_length in Hj. apply (established 0 j Hj HF).
    unfold fixed_by in HF. rewrite fate_of_fixed_by in HF by exact Hj.
    destruct (fate_of j); try discriminate; apply Nat.leb_le in HF; cbn [fate_layer]; lia.
  - intros i kl F Hi E Hk. replace kl with 0%nat in E by lia. apply established_lock; auto.
Qed.

Lemma lock_condition_mono S S' Y i F : (forall j, S j = true -> S' j = true) ->
  lock_condition c S Y i F -> lock_condition c S' Y i F.
Proof. intros HS (H1 & H2 & H3 & H4). repeat split; auto. Qed.

Lemma invariant_step k : invariant k -> invariant (S k).
Proof.
  intros [HS HL]. pose proof Ha as Ha.
  assert (Hmono : forall j, Fx k j = true -> Fx (S k) j = true) by (intros; eapply fixed_by_mono; eauto).
  split.
  - intros j Hj HF. rewrite layers_length in Hj. destruct (Fx k j) eqn:Ej.
    + cbn [layers]. pose proof (fixed_set_step c Ha (layers c k) _ HS j) as H.
      rewrite length_layer, layers_length in H. destruct (H Hj Ej) as [H1 H2].
      split; [intros l Hl; apply Hmono, H1, Hl | exact H2].
    + apply (established (S k) j Hj HF (newly_fixed k j Hj HF Ej)).
  - intros i kl F Hi E Hk. destruct (Nat.eq_dec kl (S k)) as [->|Hne].
    + apply established_lock; auto.
    + apply lock_condition_mono with (Fx k); [exact Hmono|].
      cbn [layers]. apply (lock_step c Ha (layers c k) (Fx k) i F HS). apply (HL i kl F Hi E). lia.
Qed.

Lemma invariant_all k : invariant k.
Proof. induction k; [apply invariant_0 | apply invariant_step, IHk]. Qed.

(** ** Each fate *)
Lemma leads_from k i : (i < n)%nat -> leads c k i ->
  forall t, leads c (k + t) i /\ veq (position c (k + t) i) (position c k i).
Proof.
  intros Hi Hl t. induction t as [|t [IH1 IH2]].
  - rewrite Nat.add_0_r. split; [exact Hl | reflexivity].
  - rewrite Nat.add_succ_r. pose proof Ha as Hpos. destruct (D3 c (k + t)%nat i Hpos Hi IH1) as [H1 H2].
    split; [exact H1 | rewrite H2; exact IH2].
Qed.

Lemma fixed_from k j : (j < n)%nat -> Fx k j = true ->
  forall t, attends c (k + t) j = attends c k j /\ veq (position c (k + t) j) (position c k j).
Proof.
  intros Hj HF t. induction t as [|t [IH1 IH2]].
  - rewrite Nat.add_0_r. split; reflexivity.
  - rewrite Nat.add_succ_r. pose proof (invariant_all (k + t)) as [HS _].
    assert (HF' : Fx (k + t) j = true) by (eapply fixed_by_mono; [exact HF | lia]).
    assert (Hj' : (j < length (layers c (k + t)))%nat) by (rewrite layers_length; exact Hj).
    unfold attends, position in *. cbn [layers].
    rewrite (fixed_set_attention c Ha _ _ HS j Hj' HF'), (fixed_set_positions c Ha _ _ HS j Hj' HF').
    split; [exact IH1 | exact IH2].
Qed.

Lemma locked_from k i F : (i < n)%nat -> fate_of i = Locked k F ->
  let m := mean (map (position c k) F) in
  forall t, attends c (k + t) i = F /\
            veq (mean (map (position c (k + t)) F)) m /\
            veq (position c (k + t) i) (vadd m (vscale (pow (/ (1 + alpha c)) t) (vsub (position c k i) m))).
Proof.
  intros Hi E m t. induction t as [|t (IH1 & IH2 & IH3)].
  - rewrite Nat.add_0_r. split; [|split; [reflexivity|]].
    + destruct (invariant_all k) as [_ HL]. apply (HL i k F Hi E (le_n k)).
    + intro b. rewrite coord_vadd, coord_vscale, coord_vsub. cbn [pow]. ring.
  - rewrite Nat.add_succ_r. destruct (invariant_all (k + t)) as [HS HL].
    specialize (HL i k F Hi E ltac:(lia)).
    pose proof (lock_mean c Ha (layers c (k + t)) _ i F HS HL) as Hmean.
    destruct (lock_step c Ha (layers c (k + t)) _ i F HS HL) as (H1 & H2 & _).
    unfold attends, position in *. cbn [layers]. split; [exact H1|]. split.
    + change (zpos (layer c (layers c (k + t)))) with (fun j => nth j (layer c (layers c (k + t))) []) in Hmean.
      change (zpos (layers c (k + t))) with (fun j => nth j (layers c (k + t)) []) in Hmean.
      rewrite Hmean. exact IH2.
    + change (zpos (layer c (layers c (k + t))) i) with (nth i (layer c (layers c (k + t))) []) in H2.
      rewrite H2. change (zpos (layers c (k + t))) with (fun j => nth j (layers c (k + t)) []).
      rewrite IH2. apply geometric_step; [exact Ha | exact IH3].
Qed.

Lemma fate_sound i : (i < n)%nat -> fate_holds c i (fate_of i).
Proof.
  intro Hi. destruct (fate_of i) as [k|k G|k F] eqn:E; cbn [fate_holds].
  - pose proof (token_establishes k i) as H.
    assert (Hk : (k <= Kmax)%nat) by (replace k with (fate_layer (fate_of i)) by (rewrite E; reflexivity); apply fate_layer_le, Hi).
    specialize (H Hk Hi). rewrite E in H. cbn [establishes] in H. rewrite Nat.eqb_refl in H.
    apply andb_true_iff in H as [H _]. apply list_eqb_correct in H.
    split; [|apply leads_from; auto].
    intros k' Hk' Hl. destruct k as [|k0]; [lia|].
    pose proof (token_first k0 i ltac:(lia) Hi) as H0. rewrite E in H0. cbn [first_at] in H0.
    rewrite Nat.eqb_refl in H0. apply negb_true_iff in H0.
    destruct (leads_from k' i Hi Hl (k0 - k')) as [Hl' _]. replace (k' + (k0 - k'))%nat with k0 in Hl' by lia.
    unfold leads in Hl'. rewrite Hl' in H0. unfold list_eqb in H0. destruct (list_eq_dec Nat.eq_dec [i] [i]); congruence.
  - intro t. assert (HF : Fx k i = true) by (unfold fixed_by; rewrite fate_of_fixed_by, E by exact Hi; apply Nat.leb_refl).
    destruct (fixed_from k i Hi HF t) as [H1 H2]. rewrite H1. split; [|exact H2].
    pose proof (token_establishes k i) as H.
    assert (Hk : (k <= Kmax)%nat) by (replace k with (fate_layer (fate_of i)) by (rewrite E; reflexivity); apply fate_layer_le, Hi).
    specialize (H Hk Hi). rewrite E in H. cbn [establishes] in H. rewrite Nat.eqb_refl, !andb_true_iff in H.
    apply same_setb_correct. apply H.
  - intro t. destruct (locked_from k i F Hi E t) as (H1 & _ & H3). split; [exact H1 | exact H3].
Qed.

Lemma leader_set_sound i : (i < n)%nat -> ((exists k, leads c k i) <-> is_leader_fate (fate_of i)).
Proof.
  intro Hi. split.
  - intros (k & Hl). destruct (fate_of i) as [kf|kf G|kf F] eqn:E; cbn [is_leader_fate]; [exact I| |];
      destruct (leads_from k i Hi Hl kf) as [Hl' _]; pose proof (fate_sound i Hi) as Hf; rewrite E in Hf; cbn [fate_holds] in Hf.
    + pose proof (token_establishes kf i) as H.
      assert (Hk : (kf <= Kmax)%nat) by (replace kf with (fate_layer (fate_of i)) by (rewrite E; reflexivity); apply fate_layer_le, Hi).
      specialize (H Hk Hi). rewrite E in H. cbn [establishes] in H. rewrite Nat.eqb_refl, !andb_true_iff in H.
      destruct H as (((((_ & Hnot) & Hne) & _) & _) & _).
      destruct (Hf k) as [Hs _]. rewrite Nat.add_comm in Hs. unfold leads in Hl'. rewrite Hl' in Hs.
      destruct G as [|g G]; [unfold list_eqb in Hne; destruct (list_eq_dec Nat.eq_dec [] []) as [_|Hc]; [discriminate Hne | congruence]|].
      assert (Hg : In g [i]) by (apply Hs; right; left; reflexivity). destruct Hg as [<-|[]].
      apply negb_true_iff in Hnot. cbn [mem existsb] in Hnot. rewrite Nat.eqb_refl in Hnot. discriminate.
    + pose proof (token_establishes kf i) as H.
      assert (Hk : (kf <= Kmax)%nat) by (replace kf with (fate_layer (fate_of i)) by (rewrite E; reflexivity); apply fate_layer_le, Hi).
      specialize (H Hk Hi). rewrite E in H. cbn [establishes] in H. rewrite Nat.eqb_refl, !andb_true_iff in H.
      destruct H as ((((_ & Hnot) & _) & _) & _).
      destruct (Hf k) as [Hs _]. rewrite Nat.add_comm in Hs. unfold leads in Hl'. rewrite Hl' in Hs. subst F.
      apply negb_true_iff in Hnot. cbn [mem existsb] in Hnot. rewrite Nat.eqb_refl in Hnot. discriminate.
  - destruct (fate_of i) as [kf|kf G|kf F] eqn:E; cbn [is_leader_fate]; intros []. exists kf.
    pose proof (fate_sound i Hi) as Hf. rewrite E in Hf. destruct Hf as [_ Hf].
    destruct (Hf 0%nat) as [Hl _]. rewrite Nat.add_0_r in Hl. exact Hl.
Qed.

Lemma limit_sound i : (i < n)%nat -> converges_to c i (nth i limits []).
Proof.
  intros Hi eps He. pose proof (token_establishes (fate_layer (fate_of i)) i (fate_layer_le i Hi) Hi) as H.
  pose proof (fate_sound i Hi) as Hf.
  destruct (fate_of i) as [k|k G|k F] eqn:E; cbn [fate_layer fate_holds establishes] in H, Hf; rewrite Nat.eqb_refl, ?andb_true_iff in H.
  - destruct H as [_ Hp]. apply veqb_correct in Hp. exists k. intros k' Hk' b.
    destruct Hf as [_ Hf]. destruct (Hf (k' - k)%nat) as [_ Hpos]. replace (k + (k' - k))%nat with k' in Hpos by lia.
    rewrite (Hpos b), <- (Hp b). setoid_replace (coord (nth i limits []) b - coord (nth i limits []) b) with 0 by ring.
    apply Qlt_le_weak, He.
  - destruct H as (_ & Hp). apply veqb_correct in Hp. exists k. intros k' Hk' b.
    destruct (Hf (k' - k)%nat) as [_ Hpos]. replace (k + (k' - k))%nat with k' in Hpos by lia.
    rewrite (Hpos b), <- (Hp b). setoid_replace (coord (nth i limits []) b - coord (nth i limits []) b) with 0 by ring.
    apply Qlt_le_weak, He.
  - destruct H as (_ & Hp). apply veqb_correct in Hp.
    set (m := mean (map (position c k) F)) in *.
    destruct (geometric_small (alpha c) (vsub (position c k i) m) Ha eps He) as (T & HT).
    exists (k + T)%nat. intros k' Hk' b.
    destruct (Hf (k' - k)%nat) as [_ Hpos]. replace (k + (k' - k))%nat with k' in Hpos by lia.
    rewrite (Hpos b), (Hp b). unfold m. rewrite coord_vadd, coord_vscale.
    setoid_replace (coord (mean (map (position c k) F)) b +
       pow (/ (1 + alpha c)) (k' - k) * coord (vsub (position c k i) (mean (map (position c k) F))) b -
       coord (mean (map (zpos (layers c k)) F)) b)
      with (pow (/ (1 + alpha c)) (k' - k) * coord (vsub (position c k i) m) b) by (unfold m, zpos, position; ring).
    apply HT. lia.
Qed.

Lemma replay_sound : length ZK = n /\ forall i, (i < n)%nat -> veq (position c K i) (nth i ZK []).
Proof.
  pose proof (layer_ok K K_le) as H. unfold check_layer in H. rewrite Nat.eqb_refl, andb_true_iff in H.
  destruct H as [_ H]. apply veqb_all_correct in H as [Hl Hv]. rewrite layers_length in Hl.
  split; [congruence|]. intros i _. apply Hv.
Qed.

Lemma T0_sound : exists i k, (i < n)%nat /\ leads c k i.
Proof.
  destruct check_parts as (_ & _ & _ & H & _). apply existsb_exists in H as (f & Hf & Hl).
  apply In_nth with (d := Leader 0) in Hf as (i & Hi & Ei). rewrite Hlen in Hi.
  destruct f as [k| |]; try discriminate.
  destruct (proj2 (leader_set_sound i Hi)) as (k' & Hk'); [rewrite Ei; exact I|].
  exists i, k'. split; [exact Hi | exact Hk'].
Qed.
End Soundness.

(** The soundness theorem: a certificate the checker accepts proves the outcome. *)
Theorem certificate_sound c fates limits K ZK :
  check c fates limits K ZK = true -> Outcome c fates limits K ZK.
Proof.
  intro H. destruct (check_parts c fates limits K ZK H) as (_ & H2 & H3 & _).
  destruct (replay_sound c fates limits K ZK H) as [H7 H8].
  unfold Outcome. refine (conj H2 (conj H3 (conj _ (conj _ (conj _ (conj _ (conj H7 H8))))))).
  - apply (T0_sound c fates limits K ZK H).
  - intros i Hi. apply (fate_sound c fates limits K ZK H i Hi).
  - intros i Hi. apply (leader_set_sound c fates limits K ZK H i Hi).
  - intros i Hi. apply (limit_sound c fates limits K ZK H i Hi).
Qed.
