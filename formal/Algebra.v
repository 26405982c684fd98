(** * Vectors of rationals: the linear algebra the proofs use.

    Every lemma is about the operations of Statement.v, coordinate by coordinate. *)

From Coq Require Import QArith Qabs List Lia Setoid Morphisms.
From HardmaxVerify Require Import Statement.
Import ListNotations.
Open Scope Q_scope.

(** ** [veq] is an equivalence *)
Lemma veq_refl x : veq x x.
Proof. intro a; reflexivity. Qed.
Lemma veq_sym x y : veq x y -> veq y x.
Proof. intros H a; symmetry; apply H. Qed.
Lemma veq_trans x y z : veq x y -> veq y z -> veq x z.
Proof. intros H1 H2 a; rewrite (H1 a); apply H2. Qed.
#[global] Instance veq_equiv : Equivalence veq.
Proof. split; [exact veq_refl | exact veq_sym | exact veq_trans]. Qed.

Lemma coord_nil a : coord [] a = 0.
Proof. destruct a; reflexivity. Qed.
Lemma coord_cons_0 q x : coord (q :: x) 0 = q.
Proof. reflexivity. Qed.
Lemma coord_cons_S q x a : coord (q :: x) (S a) = coord x a.
Proof. reflexivity. Qed.

Lemma veq_cons q r x y : veq (q :: x) (r :: y) <-> q == r /\ veq x y.
Proof.
  split.
  - intro H; split; [apply (H 0%nat) | intro a; apply (H (S a))].
  - intros [Hq Hx] [|a]; [exact Hq | apply Hx].
Qed.
Lemma veq_nil_cons r y : veq [] (r :: y) <-> 0 == r /\ veq [] y.
Proof.
  split.
  - intro H; split; [apply (H 0%nat) | intro a; rewrite coord_nil; rewrite <- (H (S a)), coord_nil; reflexivity].
  - intros [Hq Hx] [|a]; [exact Hq | rewrite coord_nil; rewrite <- (Hx a), coord_nil; reflexivity].
Qed.
Lemma veq_cons_nil r y : veq (r :: y) [] <-> r == 0 /\ veq y [].
Proof.
  split; intro H.
  - apply veq_sym, veq_nil_cons in H. destruct H; split; [symmetry; auto | apply veq_sym; auto].
  - apply veq_sym, veq_nil_cons. destruct H; split; [symmetry; auto | apply veq_sym; auto].
Qed.

(** ** Coordinates of the operations *)
Lemma coord_vadd x y a : coord (vadd x y) a == coord x a + coord y a.
Proof.
  revert y a; induction x as [|q x IH]; intros y a.
  - simpl. rewrite coord_nil. ring.
  - destruct y as [|r y].
    + cbn [vadd]. rewrite coord_nil. ring.
    + destruct a; cbn [vadd].
      * rewrite !coord_cons_0. apply Qred_correct.
      * rewrite !coord_cons_S. apply IH.
Qed.

Lemma coord_vscale q x a : coord (vscale q x) a == q * coord x a.
Proof.
  revert a; induction x as [|r x IH]; intro a.
  - simpl. rewrite coord_nil. ring.
  - destruct a; cbn [vscale map].
    + rewrite coord_cons_0. apply Qred_correct.
    + rewrite coord_cons_S. apply IH.
Qed.

Lemma coord_vsub x y a : coord (vsub x y) a == coord x a - coord y a.
Proof. unfold vsub. rewrite coord_vadd, coord_vscale. ring. Qed.

#[global] Instance vadd_proper : Proper (veq ==> veq ==> veq) vadd.
Proof. intros x x' Hx y y' Hy a. rewrite !coord_vadd, (Hx a), (Hy a). reflexivity. Qed.
#[global] Instance vscale_proper : Proper (Qeq ==> veq ==> veq) vscale.
Proof. intros q q' Hq x x' Hx a. rewrite !coord_vscale, Hq, (Hx a). reflexivity. Qed.
#[global] Instance vsub_proper : Proper (veq ==> veq ==> veq) vsub.
Proof. intros x x' Hx y y' Hy. unfold vsub. rewrite Hx, Hy. reflexivity. Qed.

Lemma vscale_cons q r x : vscale q (r :: x) = Qred (q * r) :: vscale q x.
Proof. reflexivity. Qed.

(** ** The inner product *)
Lemma dot_nil_r u : dot u [] = 0.
Proof. destruct u; reflexivity. Qed.
Lemma dot_nil_l x : dot [] x = 0.
Proof. reflexivity. Qed.
Lemma dot_cons q r u x : dot (q :: u) (r :: x) == q * r + dot u x.
Proof. cbn [dot]. apply Qred_correct. Qed.

Lemma dot_comm u x : dot u x == dot x u.
Proof.
  revert x; induction u as [|q u IH]; intros [|r x]; try reflexivity.
  rewrite !dot_cons, IH. ring.
Qed.

Lemma dot_veq_r u x y : veq x y -> dot u x == dot u y.
Proof.
  revert x y; induction u as [|q u IH]; intros x y H; [reflexivity|].
  destruct x as [|p x], y as [|r y].
  - reflexivity.
  - apply veq_nil_cons in H as [H0 H1]. rewrite dot_nil_r, dot_cons, <- H0.
    rewrite <- (IH _ _ H1), dot_nil_r. ring.
  - apply veq_cons_nil in H as [H0 H1]. rewrite dot_nil_r, dot_cons, H0.
    rewrite (IH _ _ H1), dot_nil_r. ring.
  - apply veq_cons in H as [H0 H1]. rewrite !dot_cons, H0, (IH _ _ H1). reflexivity.
Qed.
Lemma dot_veq_l u v x : veq u v -> dot u x == dot v x.
Proof. intro H. rewrite (dot_comm u), (dot_comm v). apply dot_veq_r, H. Qed.
#[global] Instance dot_proper : Proper (veq ==> veq ==> Qeq) dot.
Proof. intros u v Huv x y Hxy. rewrite (dot_veq_l _ _ _ Huv). apply dot_veq_r, Hxy. Qed.

Lemma dot_vadd_r u x y : dot u (vadd x y) == dot u x + dot u y.
Proof.
  revert x y; induction u as [|q u IH]; intros x y; [simpl; ring|].
  destruct x as [|p x], y as [|r y]; cbn [vadd]; rewrite ?dot_nil_r; try ring.
  rewrite !dot_cons, Qred_correct, IH. ring.
Qed.
Lemma dot_vscale_r u q x : dot u (vscale q x) == q * dot u x.
Proof.
  revert x; induction u as [|p u IH]; intros x; [simpl; ring|].
  destruct x as [|r x]; [rewrite dot_nil_r; cbn; ring|].
  rewrite vscale_cons, !dot_cons, Qred_correct, IH. ring.
Qed.
Lemma dot_vsub_r u x y : dot u (vsub x y) == dot u x - dot u y.
Proof. unfold vsub. rewrite dot_vadd_r, dot_vscale_r. ring. Qed.
Lemma dot_vadd_l u v x : dot (vadd u v) x == dot u x + dot v x.
Proof. rewrite !(dot_comm _ x). apply dot_vadd_r. Qed.
Lemma dot_vscale_l q u x : dot (vscale q u) x == q * dot u x.
Proof. rewrite !(dot_comm _ x). apply dot_vscale_r. Qed.

(** ** Matrices *)
Lemma coord_matvec M x r : coord (matvec M x) r == dot (nth r M []) x.
Proof.
  unfold coord, matvec.
  change 0 with ((fun row => dot row x) []) at 1.
  rewrite map_nth. reflexivity.
Qed.
#[global] Instance matvec_proper M : Proper (veq ==> veq) (matvec M).
Proof. intros x y H r. rewrite !coord_matvec, H. reflexivity. Qed.
Lemma matvec_vadd M x y : veq (matvec M (vadd x y)) (vadd (matvec M x) (matvec M y)).
Proof. intro r. rewrite coord_vadd, !coord_matvec. apply dot_vadd_r. Qed.
Lemma matvec_vscale M q x : veq (matvec M (vscale q x)) (vscale q (matvec M x)).
Proof. intro r. rewrite coord_vscale, !coord_matvec. apply dot_vscale_r. Qed.

(** ** Sums and means *)
Definition qsum (s : list Q) : Q := fold_right Qplus 0 s.

Lemma dot_vsum u xs : dot u (vsum xs) == qsum (map (dot u) xs).
Proof.
  unfold vsum, qsum in *.
  induction xs as [|x xs IH]; cbn [fold_right map].
  - rewrite dot_nil_r; reflexivity.
  - rewrite dot_vadd_r, IH. reflexivity.
Qed.

Lemma coord_vsum xs a : coord (vsum xs) a == qsum (map (fun x => coord x a) xs).
Proof.
  unfold vsum, qsum in *.
  induction xs as [|x xs IH]; cbn [fold_right map].
  - rewrite coord_nil. reflexivity.
  - rewrite coord_vadd, IH. reflexivity.
Qed.

Lemma length_pos_inject n : (0 < n)%nat -> inject_Z (Z.of_nat n) == inject_Z (Zpos (Pos.of_nat n)).
Proof. intro H. destruct n; [lia|]. rewrite <- Pos.of_nat_succ. reflexivity. Qed.

Lemma qsum_le (s : list Q) M : (forall x, In x s -> x <= M) ->
  qsum s <= inject_Z (Z.of_nat (length s)) * M.
Proof.
  unfold qsum in *.
  induction s as [|x s IH]; intro H; cbn [fold_right length].
  - unfold inject_Z; simpl Z.of_nat. rewrite Qmult_0_l. apply Qle_refl.
  - rewrite Nat2Z.inj_succ, <- Z.add_1_l, inject_Z_plus.
    setoid_replace ((inject_Z 1 + inject_Z (Z.of_nat (length s))) * M)
      with (M + inject_Z (Z.of_nat (length s)) * M) by (unfold inject_Z; ring).
    apply Qplus_le_compat; [apply H; left; reflexivity | apply IH; intros; apply H; right; auto].
Qed.

Lemma dot_mean u xs : dot u (mean xs) == (1 # Pos.of_nat (length xs)) * qsum (map (dot u) xs).
Proof. unfold mean. rewrite dot_vscale_r, dot_vsum. reflexivity. Qed.

Lemma coord_mean xs a : coord (mean xs) a == (1 # Pos.of_nat (length xs)) * qsum (map (fun x => coord x a) xs).
Proof. unfold mean. rewrite coord_vscale, coord_vsum. reflexivity. Qed.

Lemma one_over_length n : (0 < n)%nat -> (1 # Pos.of_nat n) * inject_Z (Z.of_nat n) == 1.
Proof.
  intro H. rewrite length_pos_inject by exact H.
  unfold Qeq, Qmult, inject_Z; simpl. lia.
Qed.

(** The mean of points that all score at most M against u scores at most M. *)
Lemma dot_mean_le u xs M : xs <> [] -> (forall x, In x xs -> dot u x <= M) -> dot u (mean xs) <= M.
Proof.
  intros Hne H. rewrite dot_mean.
  assert (Hl : (0 < length xs)%nat) by (destruct xs; [congruence | simpl; lia]).
  apply Qle_trans with ((1 # Pos.of_nat (length xs)) * (inject_Z (Z.of_nat (length (map (dot u) xs))) * M)).
  - apply Qmult_le_l; [reflexivity|]. apply qsum_le. intros y Hy. apply in_map_iff in Hy as (x & <- & Hx). auto.
  - rewrite map_length, Qmult_assoc, one_over_length by exact Hl. rewrite Qmult_1_l. apply Qle_refl.
Qed.

Lemma mean_single x : veq (mean [x]) x.
Proof. intro a. rewrite coord_mean. unfold qsum; cbn [map fold_right length Pos.of_nat]. ring. Qed.

Lemma qsum_map_ext {T} (f g : T -> Q) l : (forall x, In x l -> f x == g x) -> qsum (map f l) == qsum (map g l).
Proof.
  unfold qsum; induction l as [|x l IH]; intro H; cbn [map fold_right]; [reflexivity|].
  rewrite (H x (or_introl eq_refl)), IH; [reflexivity|]. intros; apply H; right; auto.
Qed.

(** Means of lists of the same vectors are the same vector. *)
Lemma mean_ext {T} (f g : T -> vec) l : (forall x, In x l -> veq (f x) (g x)) -> veq (mean (map f l)) (mean (map g l)).
Proof.
  intros H a. rewrite !coord_mean, !map_length, !map_map.
  apply Qmult_comp; [reflexivity|]. apply qsum_map_ext. intros x Hx. apply H, Hx.
Qed.

(** ** Boolean vector equality, for the checker *)
Fixpoint veqb (x y : vec) : bool :=
  match x, y with
  | a :: x', b :: y' => Qeq_bool a b && veqb x' y'
  | [], _ => forallb (fun b => Qeq_bool 0 b) y
  | _, [] => forallb (fun a => Qeq_bool a 0) x
  end.

Lemma veqb_correct x y : veqb x y = true -> veq x y.
Proof.
  revert y; induction x as [|q x IH]; intros y H.
  - induction y as [|r y IHy]; [reflexivity|].
    simpl in H. apply andb_true_iff in H as [H1 H2]. apply veq_nil_cons.
    split; [apply Qeq_bool_iff, H1 | apply IHy, H2].
  - destruct y as [|r y].
    + simpl in H. apply andb_true_iff in H as [H1 H2]. apply veq_cons_nil. split; [apply Qeq_bool_iff, H1|].
      clear IH H1. induction x as [|p x IHx]; [reflexivity|].
      simpl in H2. apply andb_true_iff in H2 as [H3 H4]. apply veq_cons_nil.
      split; [apply Qeq_bool_iff, H3 | apply IHx, H4].
    + simpl in H. apply andb_true_iff in H as [H1 H2]. apply veq_cons. split; [apply Qeq_bool_iff, H1 | apply IH, H2].
Qed.

(** ** Powers *)
Lemma pow_nonneg q t : 0 <= q -> 0 <= pow q t.
Proof.
  intro H. induction t; simpl; [discriminate|].
  apply Qmult_le_0_compat; auto.
Qed.
