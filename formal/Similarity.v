(** * Similarity certificates (docs/theory.md D11): an attention pattern that repeats forever.

    If <A M x, M y> = s <A x, y> for all x, y with s > 0, P is a permutation of the tokens and
    z_i^(k+p) = M z_(P i)^k for every token i, then every later layer repeats the pattern up to P:
    z_i^(k+p+t) = M z_(P i)^(k+t), and C_i(Z^(k+p+t)) is C_(P i)(Z^(k+t)) relabelled. So a leader
    of layer k+p+t is (relabelled) a leader of layer k+t, and when no token leads at layers
    0 .. k+p-1 (p > 0), none ever leads ([NoLeaderEver], the failure of T0). The identity on all
    x, y follows from a finite check on the unit vectors e_a, e_b, a, b < d (the entries
    (M^T A M)_{ba} = s A_{ba}), since both sides are bilinear and read only d coordinates. *)

From Coq Require Import QArith List Lia Setoid Morphisms Bool Permutation.
From HardmaxVerify Require Import Statement Algebra Dynamics Checker.
Import ListNotations.
Open Scope Q_scope.

(** ** From the entries to every pair of vectors *)
Fixpoint unit (a : nat) : vec := match a with O => [1] | S a' => 0 :: unit a' end.

Lemma coord_unit a b : coord (unit a) b == if Nat.eqb a b then 1 else 0.
Proof.
  revert b; induction a as [|a IH]; intros [|b]; cbn [unit Nat.eqb]; try reflexivity.
  - unfold coord; destruct b; reflexivity.
  - rewrite coord_cons_S. apply IH.
Qed.

(** The first d coordinates of x. *)
Definition trunc (d : nat) (x : vec) : vec := map (coord x) (seq 0 d).

Lemma coord_trunc d x a : (a < d)%nat -> coord (trunc d x) a == coord x a.
Proof.
  intro H. unfold trunc, coord. rewrite nth_indep with (d' := coord x 0%nat) by (rewrite map_length, seq_length; exact H).
  rewrite map_nth, seq_nth by exact H. reflexivity.
Qed.

Lemma dot_coords u x x' : (forall a, (a < length u)%nat -> coord x a == coord x' a) -> dot u x == dot u x'.
Proof.
  revert x x'; induction u as [|q u IH]; intros x x' H; [rewrite !dot_nil_l; reflexivity|].
  assert (H0 := H 0%nat ltac:(cbn; lia)).
  assert (HS : forall a, (a < length u)%nat -> coord (tl x) a == coord (tl x') a).
  { intros a Ha. specialize (H (S a) ltac:(cbn; lia)). destruct x, x'; cbn [tl]; rewrite ?coord_cons_S in H;
      rewrite ?coord_nil in *; unfold coord in *; destruct a; cbn in *; exact H. }
  specialize (IH _ _ HS).
  destruct x as [|r x], x' as [|r' x']; cbn [tl] in *; rewrite ?dot_nil_r, ?dot_cons, ?coord_cons_0, ?coord_nil in *.
  - reflexivity.
  - rewrite <- H0, <- IH. ring.
  - rewrite H0, IH. ring.
  - rewrite H0, IH. reflexivity.
Qed.

Lemma dot_trunc d u x : (length u <= d)%nat -> dot u x == dot u (trunc d x).
Proof. intro H. apply dot_coords. intros a Ha. rewrite coord_trunc by lia. reflexivity. Qed.

Definition rows_within (d : nat) (M : list vec) : Prop := forall r, (length (nth r M []) <= d)%nat.

Lemma matvec_trunc d M x : rows_within d M -> veq (matvec M x) (matvec M (trunc d x)).
Proof. intros H r. rewrite !coord_matvec. apply dot_trunc, H. Qed.

Lemma matvec_nil M : veq (matvec M []) [].
Proof. intro r. rewrite coord_matvec, dot_nil_r, coord_nil. reflexivity. Qed.

Lemma qsum_delta (f : nat -> Q) b m n : qsum (map (fun a => f a * (if Nat.eqb a b then 1 else 0)) (seq m n)) ==
  if (m <=? b) && (b <? m + n) then f b else 0.
Proof.
  revert m; induction n as [|n IH]; intro m; cbn [seq map qsum fold_right].
  - destruct ((m <=? b) && (b <? m + 0))%nat eqn:E; [|reflexivity].
    apply andb_true_iff in E as [E1 E2]. apply Nat.leb_le in E1. apply Nat.ltb_lt in E2. lia.
  - change (fold_right Qplus 0 (map (fun a => f a * (if Nat.eqb a b then 1 else 0)) (seq (S m) n)))
      with (qsum (map (fun a => f a * (if Nat.eqb a b then 1 else 0)) (seq (S m) n))).
    rewrite IH. destruct (Nat.eqb m b) eqn:E.
    + apply Nat.eqb_eq in E. subst.
      replace ((S b <=? b) && (b <? S b + n))%nat with false by (symmetry; apply andb_false_iff; left; apply Nat.leb_gt; lia).
      replace ((b <=? b) && (b <? b + S n))%nat with true by (symmetry; apply andb_true_iff; split; [apply Nat.leb_le | apply Nat.ltb_lt]; lia).
      ring.
    + apply Nat.eqb_neq in E.
      replace ((S m <=? b) && (b <? S m + n))%nat with ((m <=? b) && (b <? m + S n))%nat.
      * destruct ((m <=? b) && (b <? m + S n))%nat; ring.
      * destruct (Nat.le_gt_cases m b), (Nat.lt_ge_cases b (m + S n));
          repeat first [rewrite (proj2 (Nat.leb_le _ _)) by lia | rewrite (proj2 (Nat.leb_gt _ _)) by lia
                      | rewrite (proj2 (Nat.ltb_lt _ _)) by lia | rewrite (proj2 (Nat.ltb_ge _ _)) by lia];
          reflexivity.
Qed.

(** x's first d coordinates as a sum of unit vectors. *)
Lemma trunc_units d x : veq (trunc d x) (vsum (map (fun a => vscale (coord x a) (unit a)) (seq 0 d))).
Proof.
  intro b. rewrite coord_vsum, map_map.
  rewrite (qsum_map_ext _ (fun a => coord x a * (if Nat.eqb a b then 1 else 0))) by
    (intros a _; rewrite coord_vscale, coord_unit; reflexivity).
  rewrite qsum_delta. cbn [Nat.leb]. destruct (b <? 0 + d)%nat eqn:E.
  - apply Nat.ltb_lt in E. apply coord_trunc. lia.
  - apply Nat.ltb_ge in E. unfold trunc, coord. rewrite nth_overflow by (rewrite map_length, seq_length; lia). reflexivity.
Qed.

Section Bilinear.
Variable G : vec -> vec -> Q.
Hypothesis G_l : forall x x' y, veq x x' -> G x y == G x' y.
Hypothesis G_r : forall x y y', veq y y' -> G x y == G x y'.
Hypothesis G_nil_l : forall y, G [] y == 0.
Hypothesis G_nil_r : forall x, G x [] == 0.
Hypothesis G_add_l : forall x x' y, G (vadd x x') y == G x y + G x' y.
Hypothesis G_add_r : forall x y y', G x (vadd y y') == G x y + G x y'.
Hypothesis G_scale_l : forall q x y, G (vscale q x) y == q * G x y.
Hypothesis G_scale_r : forall q x y, G x (vscale q y) == q * G x y.

Lemma G_sum_l {T} (f : T -> vec) l y : G (vsum (map f l)) y == qsum (map (fun a => G (f a) y) l).
Proof.
  induction l as [|a l IH]; cbn [map vsum fold_right qsum]; [apply G_nil_l|].
  rewrite G_add_l. fold (vsum (map f l)). rewrite IH. reflexivity.
Qed.
Lemma G_sum_r {T} (f : T -> vec) l x : G x (vsum (map f l)) == qsum (map (fun a => G x (f a)) l).
Proof.
  induction l as [|a l IH]; cbn [map vsum fold_right qsum]; [apply G_nil_r|].
  rewrite G_add_r. fold (vsum (map f l)). rewrite IH. reflexivity.
Qed.

Lemma G_expand d x y : G (trunc d x) (trunc d y) ==
  qsum (map (fun a => coord x a * qsum (map (fun b => coord y b * G (unit a) (unit b)) (seq 0 d))) (seq 0 d)).
Proof.
  rewrite (G_l _ _ _ (trunc_units d x)), G_sum_l. apply qsum_map_ext. intros a _.
  rewrite G_scale_l, (G_r _ _ _ (trunc_units d y)), G_sum_r. apply Qmult_comp; [reflexivity|].
  apply qsum_map_ext. intros b _. apply G_scale_r.
Qed.
End Bilinear.

Section Forms.
Variable A M : list vec.
Variable s : Q.

Definition form1 (x y : vec) : Q := dot (matvec A (matvec M x)) (matvec M y).
Definition form2 (x y : vec) : Q := s * dot (matvec A x) y.

Lemma form1_expand d x y : form1 (trunc d x) (trunc d y) ==
  qsum (map (fun a => coord x a * qsum (map (fun b => coord y b * form1 (unit a) (unit b)) (seq 0 d))) (seq 0 d)).
Proof.
  apply G_expand; unfold form1; intros.
  - rewrite H. reflexivity.
  - rewrite H. reflexivity.
  - rewrite matvec_nil, matvec_nil, dot_nil_l. reflexivity.
  - rewrite matvec_nil, dot_nil_r. reflexivity.
  - rewrite matvec_vadd, matvec_vadd, dot_vadd_l. reflexivity.
  - rewrite matvec_vadd, dot_vadd_r. reflexivity.
  - rewrite matvec_vscale, matvec_vscale, dot_vscale_l. reflexivity.
  - rewrite matvec_vscale, dot_vscale_r. reflexivity.
Qed.

Lemma form2_expand d x y : form2 (trunc d x) (trunc d y) ==
  qsum (map (fun a => coord x a * qsum (map (fun b => coord y b * form2 (unit a) (unit b)) (seq 0 d))) (seq 0 d)).
Proof.
  apply G_expand; unfold form2; intros.
  - rewrite H. reflexivity.
  - rewrite H. reflexivity.
  - rewrite matvec_nil, dot_nil_l. ring.
  - rewrite dot_nil_r. ring.
  - rewrite matvec_vadd, dot_vadd_l. ring.
  - rewrite dot_vadd_r. ring.
  - rewrite matvec_vscale, dot_vscale_l. ring.
  - rewrite dot_vscale_r. ring.
Qed.

(** The finite check: lengths within d and (M^T A M)_{ba} = s A_{ba} for a, b < d. *)
Definition similar_entries (d : nat) : bool :=
  Nat.leb (length A) d && forallb (fun row => Nat.leb (length row) d) A && forallb (fun row => Nat.leb (length row) d) M &&
  forallb (fun a => forallb (fun b => Qeq_bool (form1 (unit a) (unit b)) (form2 (unit a) (unit b))) (seq 0 d)) (seq 0 d).

Lemma rows_within_b d (N : list vec) : forallb (fun row => Nat.leb (length row) d) N = true -> rows_within d N.
Proof.
  intros H r. rewrite forallb_forall in H. destruct (Nat.lt_ge_cases r (length N)) as [Hr|Hr].
  - apply Nat.leb_le, H, nth_In, Hr.
  - rewrite nth_overflow by exact Hr. cbn. lia.
Qed.

Lemma similar_entries_sound d : similar_entries d = true ->
  forall x y, dot (matvec A (matvec M x)) (matvec M y) == s * dot (matvec A x) y.
Proof.
  unfold similar_entries. rewrite !andb_true_iff. intros [[[HA HrA] HrM] He] x y.
  apply Nat.leb_le in HA. apply rows_within_b in HrA, HrM.
  change (form1 x y == form2 x y).
  transitivity (form1 (trunc d x) (trunc d y)).
  { unfold form1. rewrite (matvec_trunc d M x HrM), (matvec_trunc d M y HrM). reflexivity. }
  transitivity (form2 (trunc d x) (trunc d y)).
  2: { unfold form2. rewrite (matvec_trunc d A x HrA). apply Qmult_comp; [reflexivity|].
       symmetry. apply dot_trunc. unfold matvec. rewrite map_length. exact HA. }
  rewrite form1_expand, form2_expand. apply qsum_map_ext. intros a Ha. apply Qmult_comp; [reflexivity|].
  apply qsum_map_ext. intros b Hb. apply Qmult_comp; [reflexivity|].
  rewrite forallb_forall in He. specialize (He a Ha). rewrite forallb_forall in He.
  apply Qeq_bool_iff, He, Hb.
Qed.
End Forms.

(** ** M commutes with sums and means *)
Lemma matvec_vsum M xs : veq (matvec M (vsum xs)) (vsum (map (matvec M) xs)).
Proof.
  induction xs as [|x xs IH]; cbn [vsum fold_right map]; [apply matvec_nil|].
  rewrite matvec_vadd. fold (vsum xs). fold (vsum (map (matvec M) xs)). rewrite IH. reflexivity.
Qed.

Lemma matvec_mean M xs : veq (matvec M (mean xs)) (mean (map (matvec M) xs)).
Proof. unfold mean. rewrite matvec_vscale, matvec_vsum, map_length. reflexivity. Qed.

(** ** One layer commutes with M, up to a relabelling P of the tokens: z'_j = M z_(P j) *)
Lemma NoDup_map_on {T U} (f : T -> U) l : (forall a b, In a l -> In b l -> f a = f b -> a = b) -> NoDup l -> NoDup (map f l).
Proof.
  induction l as [|x l IH]; intros Hf Hn; cbn [map]; [constructor|].
  inversion Hn as [|? ? Hx Hl]; subst. constructor.
  - intro H. apply in_map_iff in H as (y & E & Hy). apply Hx. rewrite (Hf y x) in Hy; auto. right; exact Hy. left; reflexivity.
  - apply IH; [intros; apply Hf; auto; right; auto | exact Hl].
Qed.

Lemma qsum_perm l l' : Permutation l l' -> qsum l == qsum l'.
Proof.
  induction 1; unfold qsum in *; cbn [fold_right]; try reflexivity.
  - rewrite IHPermutation. reflexivity.
  - ring.
  - rewrite IHPermutation1. exact IHPermutation2.
Qed.

Lemma mean_perm xs ys : Permutation xs ys -> veq (mean xs) (mean ys).
Proof.
  intros H a. rewrite !coord_mean, (Permutation_length H). apply Qmult_comp; [reflexivity|].
  apply qsum_perm, Permutation_map, H.
Qed.

Lemma NoDup_attention M Z i : NoDup (attention M Z i).
Proof. rewrite attention_filter. apply NoDup_filter, seq_NoDup. Qed.

Section Relabelled.
Variable c : config.
Variable M : list vec.
Variable s : Q.
Hypothesis Hs : 0 < s.
Hypothesis Hsim : forall x y, dot (matvec (A c) (matvec M x)) (matvec M y) == s * dot (matvec (A c) x) y.
Variable P : list nat.
Notation n := (length P).
Notation perm j := (nth j P 0%nat).
Hypothesis P_range : forall j, In j P -> (j < n)%nat.
Hypothesis P_nodup : NoDup P.

Lemma perm_lt j : (j < n)%nat -> (perm j < n)%nat.
Proof. intro H. apply P_range, nth_In, H. Qed.

Lemma perm_onto x : (x < n)%nat -> exists j, (j < n)%nat /\ perm j = x.
Proof.
  intro H. assert (Hin : In x P).
  { assert (Hincl : incl P (seq 0 n)) by (intros y Hy; apply in_seq; split; [lia | apply P_range, Hy]).
    assert (Hlen : (length (seq 0 n) <= n)%nat) by (rewrite seq_length; apply le_n).
    apply (NoDup_length_incl P_nodup Hlen Hincl). apply in_seq. split; [lia | exact H]. }
  apply In_nth with (d := 0%nat) in Hin as (j & Hj & E). exists j. auto.
Qed.

Lemma perm_inj a b : (a < n)%nat -> (b < n)%nat -> perm a = perm b -> a = b.
Proof. intros Ha Hb E. exact (proj1 (NoDup_nth P 0%nat) P_nodup a b Ha Hb E). Qed.

(** Z' is M Z relabelled by P. *)
Definition relabelled (Z' Z : list vec) : Prop :=
  length Z' = n /\ length Z = n /\ forall j, (j < n)%nat -> veq (zpos Z' j) (matvec M (zpos Z (perm j))).

Lemma relabelled_score Z' Z i j : relabelled Z' Z -> (i < n)%nat -> (j < n)%nat ->
  score (A c) Z' i j == s * score (A c) Z (perm i) (perm j).
Proof. intros (_ & _ & H) Hi Hj. unfold score. rewrite (H i Hi), (H j Hj). apply Hsim. Qed.

Lemma relabelled_top Z' Z i : relabelled Z' Z -> (i < n)%nat -> top (A c) Z' i == s * top (A c) Z (perm i).
Proof.
  intros H Hi. destruct H as (H1 & H2 & H3).
  destruct (top_attained (A c) Z (perm i) ltac:(lia)) as (x & Hx & E).
  destruct (perm_onto x ltac:(lia)) as (j & Hj & <-).
  apply top_is.
  - exists j. split; [lia|]. rewrite (relabelled_score Z' Z i j (conj H1 (conj H2 H3)) Hi Hj), E. reflexivity.
  - intros l Hl. rewrite (relabelled_score Z' Z i l (conj H1 (conj H2 H3)) Hi ltac:(lia)).
    apply Qmult_le_l; [exact Hs|].
    apply score_le_top. pose proof (perm_lt l ltac:(lia)). lia.
Qed.

Lemma relabelled_mem Z' Z i j : relabelled Z' Z -> (i < n)%nat ->
  (In j (attention (A c) Z' i) <-> (j < n)%nat /\ In (perm j) (attention (A c) Z (perm i))).
Proof.
  intros H Hi. assert (Hl := H). destruct Hl as (H1 & H2 & _). rewrite !mem_attention, H1, H2.
  split; intros [Hj E]; split; auto.
  - split; [apply perm_lt, Hj|].
    rewrite (relabelled_score Z' Z i j H Hi Hj), (relabelled_top Z' Z i H Hi) in E.
    apply Qmult_inj_l in E; [exact E|]. intro E0. rewrite E0 in Hs. discriminate.
  - destruct E as [_ E]. rewrite (relabelled_score Z' Z i j H Hi Hj), (relabelled_top Z' Z i H Hi), E. reflexivity.
Qed.

Lemma relabelled_attention Z' Z i : relabelled Z' Z -> (i < n)%nat ->
  Permutation (map (fun j => perm j) (attention (A c) Z' i)) (attention (A c) Z (perm i)).
Proof.
  intros H Hi. apply NoDup_Permutation.
  - apply NoDup_map_on; [|apply NoDup_attention]. intros a b Ha Hb E.
    apply (relabelled_mem Z' Z i) in Ha, Hb; auto. apply perm_inj; tauto.
  - apply NoDup_attention.
  - intro x. rewrite in_map_iff. split.
    + intros (j & <- & Hj). apply (relabelled_mem Z' Z i j H Hi) in Hj. tauto.
    + intro Hx. assert (Hxn : (x < n)%nat) by (destruct H as (_ & H2 & _); rewrite <- H2; eapply attention_bound, Hx).
      destruct (perm_onto x Hxn) as (j & Hj & <-). exists j. split; [reflexivity|].
      apply (relabelled_mem Z' Z i j H Hi). auto.
Qed.

Lemma relabelled_layer Z' Z : relabelled Z' Z -> relabelled (layer c Z') (layer c Z).
Proof.
  intro H. assert (Hl := H). destruct Hl as (H1 & H2 & H3).
  split; [rewrite length_layer; exact H1|]. split; [rewrite length_layer; exact H2|]. intros j Hj.
  rewrite zpos_layer by lia. rewrite (zpos_layer c Z (perm j)) by (pose proof (perm_lt j Hj); lia).
  rewrite matvec_update. apply update_proper; [apply H3, Hj|].
  rewrite matvec_mean, map_map.
  rewrite (mean_ext _ (fun l => matvec M (zpos Z (perm l)))) by
    (intros l Hin; apply H3; rewrite <- H1; eapply attention_bound, Hin).
  rewrite <- (map_map (fun l => perm l) (fun x => matvec M (zpos Z x))).
  apply mean_perm, Permutation_map, relabelled_attention; auto.
Qed.

Lemma relabelled_layers k p : relabelled (layers c (k + p)) (layers c k) ->
  forall t, relabelled (layers c (k + p + t)) (layers c (k + t)).
Proof.
  intros H t. induction t as [|t IH]; [rewrite !Nat.add_0_r; exact H|].
  rewrite !Nat.add_succ_r. cbn [layers]. apply relabelled_layer, IH.
Qed.

(** A leader of layer k+p+t is, relabelled, a leader of layer k+t. *)
Lemma leads_relabelled k p : relabelled (layers c (k + p)) (layers c k) ->
  forall t i, (i < n)%nat -> leads c (k + p + t) i -> leads c (k + t) (perm i).
Proof.
  intros H t i Hi E. unfold leads, attends in *.
  assert (Hp := relabelled_attention _ _ i (relabelled_layers k p H t) Hi).
  rewrite E in Hp. cbn [map] in Hp. exact (Permutation_length_1_inv Hp).
Qed.
End Relabelled.

(** ** The checker and its soundness *)
Definition no_leader_at (c : config) (Z : list vec) : bool :=
  forallb (fun i => negb (list_eqb (attention (A c) Z i) [i])) (seq 0 (length Z)).

(** No token leads at the m layers from Z on. *)
Fixpoint no_leader_run (c : config) (m : nat) (Z : list vec) : bool :=
  match m with
  | O => true
  | S m' => no_leader_at c Z && no_leader_run c m' (layer c Z)
  end.

Fixpoint nodupb (l : list nat) : bool :=
  match l with [] => true | x :: l' => negb (mem x l') && nodupb l' end.

Lemma nodupb_correct l : nodupb l = true -> NoDup l.
Proof.
  induction l as [|x l IH]; intro H; [constructor|]. cbn [nodupb] in H. apply andb_true_iff in H as [H1 H2].
  constructor; [|apply IH, H2]. intro Hx. apply mem_In in Hx. rewrite Hx in H1. discriminate.
Qed.

(** P is a permutation of the tokens 0 .. n-1, and z_i^(k+p) = M z_(P i)^k. *)
Definition check_similarity (c : config) (k p : nat) (M : list vec) (s : Q) (P : list nat) : bool :=
  negb (Qle_bool s 0) && Nat.ltb 0 p && similar_entries (A c) M s (dim c) &&
  (Nat.eqb (length P) (ntokens c) && forallb (fun j => Nat.ltb j (length P)) P && nodupb P) &&
  veqb_all (layers c (k + p)) (map (fun j => matvec M (nth j (layers c k) [])) P) &&
  no_leader_run c (k + p) (tokens c).

Lemma no_leader_run_sound c m : forall j, no_leader_run c m (layers c j) = true ->
  forall k i, (j <= k < j + m)%nat -> (i < ntokens c)%nat -> ~ leads c k i.
Proof.
  induction m as [|m IH]; intros j H k i Hk Hi; [lia|].
  cbn [no_leader_run] in H. apply andb_true_iff in H as [H1 H2].
  destruct (Nat.eq_dec j k) as [<-|Hne].
  - unfold no_leader_at in H1. rewrite forallb_forall in H1.
    rewrite length_layers in H1. specialize (H1 i (proj2 (in_seq _ _ _) (conj (Nat.le_0_l i) Hi))).
    unfold leads, attends. intro E. rewrite E, (proj2 (list_eqb_correct [i] [i]) eq_refl) in H1. discriminate.
  - apply (IH (S j)); [exact H2 | lia | exact Hi].
Qed.

Theorem similarity_sound c k p M s P : check_similarity c k p M s P = true -> NoLeaderEver c.
Proof.
  unfold check_similarity. rewrite !andb_true_iff. intros [[[[[Hs Hp] He] [[HPn HPr] HPd]] Hrel] Hno].
  assert (Hs' : 0 < s) by (apply Qnot_le_lt; intro E; apply Qle_bool_iff in E; rewrite E in Hs; discriminate).
  apply Nat.ltb_lt in Hp. apply Nat.eqb_eq in HPn. apply nodupb_correct in HPd.
  assert (HPr' : forall j, In j P -> (j < length P)%nat) by (intros j Hj; rewrite forallb_forall in HPr; apply Nat.ltb_lt, HPr, Hj).
  assert (Hsim := similar_entries_sound _ _ _ _ He).
  assert (Hr : relabelled M P (layers c (k + p)) (layers c k)).
  { apply veqb_all_correct in Hrel as [Hl Hn]. rewrite map_length in Hl.
    split; [exact Hl|]. split; [rewrite length_layers; congruence|].
    intros j Hj. unfold zpos. rewrite Hn.
    rewrite nth_indep with (d' := (fun j => matvec M (nth j (layers c k) [])) 0%nat) by (rewrite map_length; exact Hj).
    pose proof (map_nth (fun j => matvec M (nth j (layers c k) [])) P 0%nat j) as E. cbv beta in E.
    rewrite E. reflexivity. }
  change (tokens c) with (layers c 0) in Hno.
  assert (Hbase := no_leader_run_sound c (k + p) 0 Hno).
  intro l. induction l as [l IH] using (well_founded_induction lt_wf). intros i Hi.
  destruct (Nat.lt_ge_cases l (k + p)) as [Hl|Hl]; [apply Hbase; lia|].
  replace l with (k + p + (l - k - p))%nat by lia. intro E.
  assert (Hi' : (i < length P)%nat) by (rewrite HPn; exact Hi).
  apply (leads_relabelled c M s Hs' Hsim P HPr' HPd k p Hr) in E; [|exact Hi'].
  revert E. apply IH; [lia|]. rewrite <- HPn. apply perm_lt; assumption.
Qed.
