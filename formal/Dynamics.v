(** * One layer of the dynamics: the attention set, the strict step, and the one-step
    invariants behind D1, D3 and D7 (docs/theory.md §3 and §8). For every A, every alpha > 0
    and every configuration: no symmetry, definiteness or distinctness is assumed. *)

From Coq Require Import QArith Qabs List Lia Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra.
Import ListNotations.
Open Scope Q_scope.

Definition zpos (Z : list vec) (j : nat) : vec := nth j Z [].
(** The score <A z_i, z_j> and the top score of token i. *)
Definition score (M : list vec) (Z : list vec) (i j : nat) : Q := dot (matvec M (zpos Z i)) (zpos Z j).
Definition top (M : list vec) (Z : list vec) (i : nat) : Q := max_list (map (dot (matvec M (zpos Z i))) Z).

(** ** The maximum of a list *)
Lemma qmax_ge_l x y : x <= qmax x y.
Proof.
  unfold qmax. destruct (Qle_bool x y) eqn:E; [apply Qle_bool_iff, E | apply Qle_refl].
Qed.
Lemma qmax_ge_r x y : y <= qmax x y.
Proof.
  unfold qmax. destruct (Qle_bool x y) eqn:E; [apply Qle_refl|].
  apply Qlt_le_weak, Qnot_le_lt. intro H. apply Qle_bool_iff in H. congruence.
Qed.
Lemma qmax_cases x y : qmax x y = x \/ qmax x y = y.
Proof. unfold qmax. destruct (Qle_bool x y); auto. Qed.

Lemma fold_max_ge d s : d <= fold_right qmax d s /\ forall x, In x s -> x <= fold_right qmax d s.
Proof.
  induction s as [|y s [IH1 IH2]]; cbn [fold_right]; split.
  - apply Qle_refl.
  - intros x [].
  - eapply Qle_trans; [exact IH1 | apply qmax_ge_r].
  - intros x [<-|Hx]; [apply qmax_ge_l|]. eapply Qle_trans; [apply IH2, Hx | apply qmax_ge_r].
Qed.
Lemma fold_max_in d s : fold_right qmax d s = d \/ In (fold_right qmax d s) s.
Proof.
  induction s as [|y s IH]; cbn [fold_right]; [left; reflexivity|].
  destruct (qmax_cases y (fold_right qmax d s)) as [E|E]; rewrite E.
  - right; left; reflexivity.
  - destruct IH as [IH|IH]; [left; exact IH | right; right; exact IH].
Qed.
Lemma max_list_ge s x : In x s -> x <= max_list s.
Proof. apply fold_max_ge. Qed.
Lemma max_list_in s : s <> [] -> In (max_list s) s.
Proof.
  intro H. unfold max_list. destruct (fold_max_in (hd 0 s) s) as [E|E]; [|exact E].
  rewrite E. destruct s; [congruence | left; reflexivity].
Qed.

(** ** The attention set as a filter, and its members *)
Lemma indices_filter (P : Q -> bool) (l : list Q) k :
  map fst (filter (fun js => P (snd js)) (combine (seq k (length l)) l)) =
  filter (fun j => P (nth (j - k) l 0)) (seq k (length l)).
Proof.
  revert k; induction l as [|s l IH]; intro k; [reflexivity|].
  assert (E : filter (fun j => P (nth (j - S k) l 0)) (seq (S k) (length l)) =
              filter (fun j => P (nth (j - k) (s :: l) 0)) (seq (S k) (length l))).
  { apply filter_ext_in. intros j Hj. apply in_seq in Hj.
    replace (j - k)%nat with (S (j - S k)) by lia. reflexivity. }
  cbn [length seq combine filter].
  rewrite Nat.sub_diag, <- E, <- IH. change (nth 0 (s :: l) 0) with s. change (snd (k, s)) with s.
  destruct (P s); reflexivity.
Qed.

Lemma nth_scores u Z j : nth j (map (dot u) Z) 0 = dot u (nth j Z []).
Proof.
  rewrite <- (dot_nil_r u) at 1. apply map_nth.
Qed.

Section Attention.
Variable M : list vec.
Variable Z : list vec.
Notation n := (length Z).

Lemma attention_filter i :
  attention M Z i = filter (fun j => Qeq_bool (score M Z i j) (top M Z i)) (seq 0 n).
Proof.
  unfold attention; cbv zeta.
  rewrite <- (map_length (dot (matvec M (nth i Z []))) Z) at 1.
  rewrite (indices_filter (fun s => Qeq_bool s (max_list (map (dot (matvec M (nth i Z []))) Z)))), map_length. apply filter_ext. intro j.
  rewrite Nat.sub_0_r, nth_scores. reflexivity.
Qed.

Lemma mem_attention i j : In j (attention M Z i) <-> (j < n)%nat /\ score M Z i j == top M Z i.
Proof.
  rewrite attention_filter, filter_In, in_seq, Qeq_bool_iff. split; intros [H1 H2]; split; auto; lia.
Qed.

Lemma score_le_top i j : (j < n)%nat -> score M Z i j <= top M Z i.
Proof.
  intro H. unfold top, score. apply max_list_ge. apply in_map. unfold zpos. apply nth_In, H.
Qed.

Lemma top_attained i : (0 < n)%nat -> exists j, (j < n)%nat /\ score M Z i j = top M Z i.
Proof.
  intro H. assert (Hne : map (dot (matvec M (zpos Z i))) Z <> []) by (destruct Z; [simpl in H; lia | discriminate]).
  apply max_list_in in Hne. apply in_map_iff in Hne as (z & Hz & Hin).
  apply In_nth with (d := []) in Hin as (j & Hj & Hjz).
  exists j. split; [exact Hj|]. unfold score, top, zpos. rewrite Hjz. exact Hz.
Qed.

(** The top score is T when some token scores T and none more. *)
Lemma top_is i T : (exists j, (j < n)%nat /\ score M Z i j == T) ->
  (forall l, (l < n)%nat -> score M Z i l <= T) -> top M Z i == T.
Proof.
  intros (j & Hj & HjT) Hle.
  destruct (top_attained i) as (j' & Hj' & E); [lia|].
  apply Qle_antisym.
  - rewrite <- E. apply Hle, Hj'.
  - rewrite <- HjT. apply score_le_top, Hj.
Qed.

Lemma attention_bound i j : In j (attention M Z i) -> (j < n)%nat.
Proof. rewrite mem_attention. tauto. Qed.

Lemma attention_nonempty i : (i < n)%nat -> exists j, In j (attention M Z i).
Proof.
  intro H. destruct (top_attained i) as (j & Hj & E); [lia|].
  exists j. apply mem_attention. split; [exact Hj | rewrite E; reflexivity].
Qed.

Lemma attention_not_nil i : (i < n)%nat -> attention M Z i <> [].
Proof. intros H E. destruct (attention_nonempty i H) as (j & Hj). rewrite E in Hj. exact Hj. Qed.

Lemma not_in_attention i j : (j < n)%nat -> ~ In j (attention M Z i) -> score M Z i j < top M Z i.
Proof.
  intros Hj Hn. destruct (Qle_lt_or_eq _ _ (score_le_top i j Hj)) as [H|E]; [exact H|].
  exfalso. apply Hn, mem_attention. split; [exact Hj | rewrite E; reflexivity].
Qed.

Lemma in_attention_top i j : In j (attention M Z i) -> score M Z i j == top M Z i.
Proof. rewrite mem_attention. tauto. Qed.
End Attention.

(** Two attention lists with the same members are the same list (both are in increasing order). *)
Lemma attention_ext M Z Z' i i' : length Z = length Z' ->
  (forall j, In j (attention M Z i) <-> In j (attention M Z' i')) ->
  attention M Z i = attention M Z' i'.
Proof.
  intros Hl H. rewrite !attention_filter, <- Hl. apply filter_ext_in. intros j Hj.
  apply in_seq in Hj. apply eq_true_iff_eq. rewrite !Qeq_bool_iff.
  specialize (H j). rewrite !mem_attention in H. rewrite <- Hl in H. destruct H as [H1 H2].
  assert (Hj' : (j < length Z)%nat) by lia.
  split; intro E; [exact (proj2 (H1 (conj Hj' E))) | exact (proj2 (H2 (conj Hj' E)))].
Qed.

(** Membership when the top score is known. *)
Lemma mem_attention_top M Z i T j : top M Z i == T ->
  (In j (attention M Z i) <-> (j < length Z)%nat /\ score M Z i j == T).
Proof. intro E. rewrite mem_attention, E. reflexivity. Qed.

(** ** One layer *)
Lemma length_step c Z sets : length (step c Z sets) = length Z.
Proof. unfold step. rewrite map_length, seq_length. reflexivity. Qed.

Lemma length_layer c Z : length (layer c Z) = length Z.
Proof. unfold layer. apply length_step. Qed.

Lemma length_layers c k : length (layers c k) = ntokens c.
Proof. induction k; cbn [layers]; [reflexivity | rewrite length_layer; exact IHk]. Qed.

Lemma nth_map_seq {T} (f : nat -> T) d n j : (j < n)%nat -> nth j (map f (seq 0 n)) d = f j.
Proof.
  intro H. rewrite nth_indep with (d' := f 0%nat) by (rewrite map_length, seq_length; exact H).
  rewrite map_nth, seq_nth by exact H. reflexivity.
Qed.

Lemma nth_attention_sets c Z j : (j < length Z)%nat ->
  nth j (attention_sets c Z) [] = attention (A c) Z j.
Proof. intro H. unfold attention_sets. apply nth_map_seq, H. Qed.

Lemma zpos_step c Z sets j : (j < length Z)%nat ->
  zpos (step c Z sets) j = update (alpha c) (zpos Z j) (mean (map (zpos Z) (nth j sets []))).
Proof. intro H. unfold zpos, step. rewrite nth_map_seq by exact H. reflexivity. Qed.

Lemma zpos_layer c Z j : (j < length Z)%nat ->
  zpos (layer c Z) j = update (alpha c) (zpos Z j) (mean (map (zpos Z) (attention (A c) Z j))).
Proof. intro H. unfold layer. rewrite zpos_step, nth_attention_sets by exact H. reflexivity. Qed.

Lemma dot_update u a z m : dot u (update a z m) == / (1 + a) * (dot u z + a * dot u m).
Proof. unfold update. rewrite dot_vscale_r, dot_vadd_r, dot_vscale_r. reflexivity. Qed.
Lemma dot_update_l a z m x : dot (update a z m) x == / (1 + a) * (dot z x + a * dot m x).
Proof. rewrite dot_comm, dot_update, !(dot_comm x). reflexivity. Qed.
Lemma coord_update a z m k : coord (update a z m) k == / (1 + a) * (coord z k + a * coord m k).
Proof. unfold update. rewrite coord_vscale, coord_vadd, coord_vscale. reflexivity. Qed.
Lemma matvec_update M a z m : veq (matvec M (update a z m)) (update a (matvec M z) (matvec M m)).
Proof. unfold update. rewrite matvec_vscale, matvec_vadd, matvec_vscale. reflexivity. Qed.
#[global] Instance update_proper a : Proper (veq ==> veq ==> veq) (update a).
Proof. intros z z' Hz m m' Hm. unfold update. rewrite Hz, Hm. reflexivity. Qed.

(** ** The arithmetic of one step, with r = 1/(1+alpha) and gamma = alpha/(1+alpha) *)
Section StepArithmetic.
Variable a : Q.
Hypothesis Ha : 0 < a.

Lemma one_plus_pos : 0 < 1 + a.
Proof. apply Qlt_trans with a; [exact Ha|]. rewrite <- (Qplus_0_l a) at 1. apply Qplus_lt_l. reflexivity. Qed.
Lemma one_plus_nonzero : ~ 1 + a == 0.
Proof. intro E. pose proof one_plus_pos as H. rewrite E in H. discriminate. Qed.

Lemma avg_lt s t S T : s < S -> t <= T -> / (1 + a) * (s + a * t) < / (1 + a) * (S + a * T).
Proof.
  intros H1 H2. rewrite !(Qmult_comm (/ (1 + a))).
  apply Qmult_lt_r; [apply Qinv_lt_0_compat, one_plus_pos|].
  apply Qplus_lt_le_compat; [exact H1|]. apply Qmult_le_l; [exact Ha | exact H2].
Qed.
Lemma avg_le s t S T : s <= S -> t <= T -> / (1 + a) * (s + a * t) <= / (1 + a) * (S + a * T).
Proof.
  intros H1 H2. rewrite !(Qmult_comm (/ (1 + a))).
  apply Qmult_le_r; [apply Qinv_lt_0_compat, one_plus_pos|].
  apply Qplus_le_compat; [exact H1|]. apply Qmult_le_l; [exact Ha | exact H2].
Qed.
Lemma avg_same s : / (1 + a) * (s + a * s) == s.
Proof. field. apply one_plus_nonzero. Qed.

Lemma update_same z : veq (update a z z) z.
Proof. intro k. rewrite coord_update. apply avg_same. Qed.
End StepArithmetic.

(** ** The strict step (docs/theory.md D3, §8) *)
Section OneLayer.
Variable c : config.
Hypothesis Ha : 0 < alpha c.
Variable Z : list vec.
Notation n := (length Z).
Notation Z' := (layer c Z).
Notation att := (attention (A c) Z).

Lemma dot_mean_attention u B j : (j < n)%nat ->
  (forall l, (l < n)%nat -> dot u (zpos Z l) <= B) -> dot u (mean (map (zpos Z) (att j))) <= B.
Proof.
  intros Hj H. apply dot_mean_le.
  - intro E. apply map_eq_nil in E. exact (attention_not_nil _ _ _ Hj E).
  - intros x Hx. apply in_map_iff in Hx as (l & <- & Hl). apply H. eapply attention_bound, Hl.
Qed.

Lemma dot_layer u j : (j < n)%nat ->
  dot u (zpos Z' j) == / (1 + alpha c) * (dot u (zpos Z j) + alpha c * dot u (mean (map (zpos Z) (att j)))).
Proof. intro Hj. rewrite zpos_layer by exact Hj. apply dot_update. Qed.

(** If every token scores at most B against u, so does every token of the next layer, and a
    token that scored strictly less still does. *)
Lemma weak_step u B j : (j < n)%nat ->
  (forall l, (l < n)%nat -> dot u (zpos Z l) <= B) -> dot u (zpos Z' j) <= B.
Proof.
  intros Hj H. rewrite dot_layer by exact Hj. rewrite <- (avg_same (alpha c) Ha B).
  apply avg_le; [exact Ha | apply H, Hj | apply dot_mean_attention; auto].
Qed.

Lemma strict_step u B j : (j < n)%nat ->
  (forall l, (l < n)%nat -> dot u (zpos Z l) <= B) -> dot u (zpos Z j) < B -> dot u (zpos Z' j) < B.
Proof.
  intros Hj H Hlt. rewrite dot_layer by exact Hj. rewrite <- (avg_same (alpha c) Ha B).
  apply avg_lt; [exact Ha | exact Hlt | apply dot_mean_attention; auto].
Qed.

Lemma score_bound_top i l : (l < n)%nat -> dot (matvec (A c) (zpos Z i)) (zpos Z l) <= top (A c) Z i.
Proof. apply score_le_top. Qed.

(** ** Fixed sets (D7 (b), §8): a set S of tokens that attend only inside S and sit at the
    mean of their attention sets stays put, with the same attention sets. *)
Definition fixed_set (S : nat -> bool) (Y : list vec) : Prop :=
  forall j, (j < length Y)%nat -> S j = true ->
    (forall l, In l (attention (A c) Y j) -> S l = true) /\
    veq (zpos Y j) (mean (map (zpos Y) (attention (A c) Y j))).

Lemma fixed_set_positions S : fixed_set S Z ->
  forall j, (j < n)%nat -> S j = true -> veq (zpos Z' j) (zpos Z j).
Proof.
  intros HS j Hj Sj. rewrite zpos_layer by exact Hj.
  destruct (HS j Hj Sj) as [_ Hm]. rewrite <- Hm. apply update_same, Ha.
Qed.

Lemma fixed_set_attention S : fixed_set S Z ->
  forall j, (j < n)%nat -> S j = true -> attention (A c) Z' j = att j.
Proof.
  intros HS j Hj Sj.
  pose proof (fixed_set_positions S HS) as Hpos.
  set (u := matvec (A c) (zpos Z j)).
  set (T := top (A c) Z j).
  assert (Hu : veq (matvec (A c) (zpos Z' j)) u) by (unfold u; rewrite (Hpos j Hj Sj); reflexivity).
  assert (Hsc : forall l, score (A c) Z' j l == dot u (zpos Z' l)) by (intro l; unfold score; rewrite Hu; reflexivity).
  (* tokens outside S score strictly below T, those inside keep their scores *)
  assert (Hin : forall l, (l < n)%nat -> S l = true -> score (A c) Z' j l == score (A c) Z j l).
  { intros l Hl Sl. rewrite Hsc. unfold score. fold u. rewrite (Hpos l Hl Sl). reflexivity. }
  assert (Hout : forall l, (l < n)%nat -> S l = false -> score (A c) Z' j l < T).
  { intros l Hl Sl. rewrite Hsc. apply strict_step; [exact Hl | intros; apply score_bound_top; auto |].
    apply not_in_attention; [exact Hl|]. intro Hm. apply (proj1 (HS j Hj Sj)) in Hm. congruence. }
  assert (Htop : top (A c) Z' j == T).
  { apply top_is.
    - destruct (attention_nonempty (A c) Z j Hj) as (l & Hl).
      exists l. rewrite length_layer. split; [eapply attention_bound, Hl|].
      rewrite Hin; [apply in_attention_top, Hl | eapply attention_bound, Hl | apply (proj1 (HS j Hj Sj)), Hl].
    - intros l Hl. rewrite length_layer in Hl. destruct (S l) eqn:Sl.
      + rewrite Hin by auto. apply score_le_top, Hl.
      + apply Qlt_le_weak, Hout; auto. }
  apply attention_ext; [apply length_layer|]. intro l.
  rewrite (mem_attention_top _ _ _ _ _ Htop), mem_attention, length_layer.
  split.
  - intros [Hl E]. destruct (S l) eqn:Sl.
    + split; [exact Hl|]. rewrite <- Hin by auto. exact E.
    + exfalso. pose proof (Hout l Hl Sl) as H. rewrite E in H. apply (Qlt_irrefl _ H).
  - intros [Hl E]. assert (Sl : S l = true) by (apply (proj1 (HS j Hj Sj)), mem_attention; auto).
    split; [exact Hl|]. rewrite Hin by auto. exact E.
Qed.

Lemma fixed_set_step S : fixed_set S Z -> fixed_set S Z'.
Proof.
  intros HS j Hj Sj. rewrite length_layer in Hj.
  rewrite (fixed_set_attention S HS j Hj Sj).
  destruct (HS j Hj Sj) as [Hsub Hm]. split; [exact Hsub|].
  rewrite (fixed_set_positions S HS j Hj Sj), Hm.
  apply mean_ext. intros l Hl. symmetry. apply (fixed_set_positions S HS); [eapply attention_bound, Hl | apply Hsub, Hl].
Qed.

(** D3 in one step: a leader stays a leader and does not move. *)
Lemma leader_step i : (i < n)%nat -> att i = [i] ->
  attention (A c) Z' i = [i] /\ veq (zpos Z' i) (zpos Z i).
Proof.
  intros Hi E.
  set (S := fun l => Nat.eqb l i).
  assert (HS : fixed_set S Z).
  { intros j Hj Sj. apply Nat.eqb_eq in Sj. subst j. rewrite E. split.
    - intros l [<-|[]]. apply Nat.eqb_refl.
    - cbn [map]. symmetry. apply mean_single. }
  assert (Si : S i = true) by apply Nat.eqb_refl.
  split; [rewrite (fixed_set_attention S HS i Hi Si); exact E|].
  apply (fixed_set_positions S HS i Hi Si).
Qed.

(** ** Locking onto a set F of fixed tokens (D7, §8) *)
Definition lock_condition (S : nat -> bool) (Y : list vec) (i : nat) (F : list nat) : Prop :=
  (i < length Y)%nat /\ attention (A c) Y i = F /\ (forall v, In v F -> S v = true) /\
  exists T, (forall v, In v F -> dot (matvec (A c) (mean (map (zpos Y) F))) (zpos Y v) == T) /\
            (forall l, (l < length Y)%nat -> dot (matvec (A c) (mean (map (zpos Y) F))) (zpos Y l) <= T).

Lemma lock_mean S i F : fixed_set S Z -> lock_condition S Z i F ->
  veq (mean (map (zpos Z') F)) (mean (map (zpos Z) F)).
Proof.
  intros HS (Hi & Hatt & HF & _). apply mean_ext. intros v Hv.
  apply (fixed_set_positions S HS); [|apply HF, Hv]. rewrite <- Hatt in Hv. eapply attention_bound, Hv.
Qed.

Lemma lock_step S i F : fixed_set S Z -> lock_condition S Z i F ->
  attention (A c) Z' i = F /\ veq (zpos Z' i) (update (alpha c) (zpos Z i) (mean (map (zpos Z) F))) /\
  lock_condition S Z' i F.
Proof.
  intros HS HL. pose proof (lock_mean S i F HS HL) as Hmean.
  destruct HL as (Hi & Hatt & HF & T & HT & Hle).
  set (m := mean (map (zpos Z) F)) in *.
  set (w := matvec (A c) m) in *.
  set (u1 := matvec (A c) (zpos Z i)).
  set (T1 := top (A c) Z i).
  pose proof (fixed_set_positions S HS) as Hpos.
  assert (HFn : forall v, In v F -> (v < n)%nat) by (intros v Hv; rewrite <- Hatt in Hv; eapply attention_bound, Hv).
  assert (Hzi : zpos Z' i = update (alpha c) (zpos Z i) m) by (rewrite zpos_layer, Hatt by exact Hi; reflexivity).
  assert (Hsc : forall l, score (A c) Z' i l == / (1 + alpha c) * (dot u1 (zpos Z' l) + alpha c * dot w (zpos Z' l))).
  { intro l. unfold score. rewrite Hzi, matvec_update. apply dot_update_l. }
  set (T' := / (1 + alpha c) * (T1 + alpha c * T)).
  assert (Hin : forall v, In v F -> score (A c) Z' i v == T').
  { intros v Hv. rewrite Hsc, (Hpos v (HFn v Hv) (HF v Hv)).
    unfold T'. rewrite (HT v Hv). unfold u1, T1. fold (score (A c) Z i v).
    rewrite (in_attention_top (A c) Z i v); [reflexivity | rewrite Hatt; exact Hv]. }
  assert (Hout : forall l, (l < n)%nat -> ~ In l F -> score (A c) Z' i l < T').
  { intros l Hl Hn. rewrite Hsc. unfold T'. apply avg_lt; [exact Ha| |].
    - apply strict_step; [exact Hl | intros; apply score_bound_top; auto|].
      apply not_in_attention; [exact Hl | rewrite Hatt; exact Hn].
    - apply weak_step; [exact Hl | exact Hle]. }
  assert (Htop : top (A c) Z' i == T').
  { apply top_is.
    - destruct (attention_nonempty (A c) Z i Hi) as (v & Hv). rewrite Hatt in Hv.
      exists v. rewrite length_layer. split; [apply HFn, Hv | apply Hin, Hv].
    - intros l Hl. rewrite length_layer in Hl. destruct (in_dec Nat.eq_dec l F) as [Hv|Hv].
      + rewrite Hin by exact Hv. apply Qle_refl.
      + apply Qlt_le_weak, Hout; auto. }
  assert (Hatt' : attention (A c) Z' i = F).
  { rewrite <- Hatt. apply attention_ext; [apply length_layer|]. intro l.
    rewrite (mem_attention_top _ _ _ _ _ Htop), length_layer, Hatt. split.
    - intros [Hl E]. destruct (in_dec Nat.eq_dec l F) as [Hv|Hv]; [exact Hv|].
      exfalso. pose proof (Hout l Hl Hv) as H. rewrite E in H. apply (Qlt_irrefl _ H).
    - intro Hv. split; [apply HFn, Hv | apply Hin, Hv]. }
  split; [exact Hatt'|]. split; [rewrite Hzi; reflexivity|].
  split; [rewrite length_layer; exact Hi|]. split; [exact Hatt'|]. split; [exact HF|].
  exists T. split.
  - intros v Hv. rewrite Hmean. fold m. fold w. rewrite (Hpos v (HFn v Hv) (HF v Hv)). apply HT, Hv.
  - intros l Hl. rewrite length_layer in Hl. rewrite Hmean. fold m. fold w. apply weak_step; [exact Hl | exact Hle].
Qed.

(** ** D1: each token of the next layer is a convex combination of this layer's tokens *)
Lemma combination_app Y ws1 ws2 : veq (combination Y (ws1 ++ ws2)) (vadd (combination Y ws1) (combination Y ws2)).
Proof.
  induction ws1 as [|[w j] ws1 IH]; cbn [app combination].
  - intro k. rewrite coord_vadd, coord_nil. ring.
  - rewrite IH. intro k. rewrite !coord_vadd. ring.
Qed.

Lemma combination_uniform Y q js : veq (combination Y (map (fun j => (q, j)) js)) (vscale q (vsum (map (zpos Y) js))).
Proof.
  induction js as [|j js IH]; cbn [map combination vsum fold_right].
  - intro k. rewrite coord_vscale, coord_nil. ring.
  - fold (vsum (map (zpos Y) js)). rewrite IH. intro k. rewrite coord_vscale, !coord_vadd, !coord_vscale.
    unfold zpos. ring.
Qed.

Lemma qsum_const q (l : list nat) : fold_right Qplus 0 (map fst (map (fun j => (q, j)) l)) == inject_Z (Z.of_nat (length l)) * q.
Proof.
  induction l as [|j l IH]; cbn [map fold_right fst length].
  - unfold inject_Z. simpl Z.of_nat. ring.
  - rewrite IH, Nat2Z.inj_succ, <- Z.add_1_l, inject_Z_plus. change (inject_Z 1) with 1. ring.
Qed.

Lemma layer_convex i : (i < n)%nat ->
  exists ws : list (Q * nat),
    Forall (fun wj => 0 <= fst wj /\ (snd wj < n)%nat) ws /\
    fold_right Qplus 0 (map fst ws) == 1 /\
    veq (zpos Z' i) (combination Z ws).
Proof.
  intro Hi. set (C := att i).
  set (g := alpha c / (1 + alpha c) * (1 # Pos.of_nat (length C))).
  assert (HC : (0 < length C)%nat) by (destruct C eqn:E; [exfalso; exact (attention_not_nil _ _ _ Hi E) | simpl; lia]).
  pose proof (one_plus_pos _ Ha) as H1.
  exists ((/ (1 + alpha c), i) :: map (fun j => (g, j)) C). split; [|split].
  - constructor.
    + split; [apply Qlt_le_weak, Qinv_lt_0_compat, H1 | exact Hi].
    + apply Forall_forall. intros [w j] Hw. apply in_map_iff in Hw as (l & E & Hl). injection E as <- <-.
      split; [|eapply attention_bound, Hl]. unfold g. apply Qmult_le_0_compat; [|discriminate].
      apply Qle_shift_div_l; [exact H1|]. rewrite Qmult_0_l. apply Qlt_le_weak, Ha.
  - cbn [map fold_right fst]. rewrite qsum_const. unfold g.
    rewrite (Qmult_comm (inject_Z _)), <- Qmult_assoc, one_over_length by exact HC.
    field. apply one_plus_nonzero, Ha.
  - rewrite zpos_layer by exact Hi. cbn [combination]. rewrite combination_uniform.
    intro k. rewrite coord_update, !coord_vadd, !coord_vscale, coord_mean, coord_vsum, map_length.
    unfold g, zpos, C. field. apply one_plus_nonzero, Ha.
Qed.
End OneLayer.
