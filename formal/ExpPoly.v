(** * Exponential polynomials sum_i c_i t^(a_i) b_i^t: evaluation, the shift t -> t + 1,
    products of scores, normal forms, and a sign decision for every t >= 0 (docs/theory.md D9, §8). *)

From Coq Require Import QArith Qabs List Lia Lqa Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra.
Import ListNotations.
Open Scope Q_scope.

Definition qn (t : nat) : Q := inject_Z (Z.of_nat t).

Lemma qn_succ t : qn (S t) == qn t + 1.
Proof. unfold qn. rewrite Nat2Z.inj_succ, <- Z.add_1_r, inject_Z_plus. reflexivity. Qed.
Lemma qn_nonneg t : 0 <= qn t.
Proof. unfold qn, Qle; simpl. lia. Qed.

#[global] Instance pow_proper : Proper (Qeq ==> eq ==> Qeq) pow.
Proof. intros x y H t t' <-. induction t; cbn [pow]; [reflexivity | apply Qmult_comp; assumption]. Qed.

Lemma pow_add q m n : pow q (m + n) == pow q m * pow q n.
Proof. induction m; cbn [pow plus]; [ring | rewrite IHm; ring]. Qed.
Lemma pow_mul_base p q t : pow (p * q) t == pow p t * pow q t.
Proof. induction t; cbn [pow]; [ring | rewrite IHt; ring]. Qed.
Lemma pow_pos q t : 0 < q -> 0 < pow q t.
Proof. intro H. induction t; cbn [pow]; [reflexivity | apply Qmult_lt_0_compat; assumption]. Qed.
Lemma pow_le_1 q t : 0 <= q -> q <= 1 -> pow q t <= 1.
Proof.
  intros H0 H1. induction t; cbn [pow]; [apply Qle_refl|].
  apply Qle_trans with (1 * pow q t); [apply Qmult_le_compat_r; [exact H1 | apply pow_nonneg, H0] | lra].
Qed.

(** ** Polynomials in x as coefficient lists, lowest first; (x + 1)^a expanded *)
Fixpoint peval (l : list Q) (x : Q) : Q :=
  match l with [] => 0 | c :: l' => c + x * peval l' x end.
Fixpoint padd (l m : list Q) : list Q :=
  match l, m with
  | a :: l', b :: m' => (a + b) :: padd l' m'
  | [], _ => m
  | _, [] => l
  end.
Lemma peval_padd l m x : peval (padd l m) x == peval l x + peval m x.
Proof.
  revert m; induction l as [|a l IH]; intros [|b m]; cbn [padd peval]; try ring.
  rewrite IH. ring.
Qed.
(** (x + 1) p(x) *)
Definition pshift1 (l : list Q) : list Q := padd l (0 :: l).
Lemma peval_pshift1 l x : peval (pshift1 l) x == (x + 1) * peval l x.
Proof. unfold pshift1. rewrite peval_padd. cbn [peval]. ring. Qed.
Fixpoint binomial_coeffs (a : nat) : list Q :=
  match a with O => [1] | S a' => pshift1 (binomial_coeffs a') end.
Lemma peval_binomial a x : peval (binomial_coeffs a) x == pow (x + 1) a.
Proof. induction a; cbn [binomial_coeffs pow peval]; [ring | rewrite peval_pshift1, IHa; ring]. Qed.

(** peval as a sum over indexed coefficients *)
Fixpoint indexed (l : list Q) (j : nat) : list (Q * nat) :=
  match l with [] => [] | c :: l' => (c, j) :: indexed l' (S j) end.
Lemma peval_indexed l x j : pow x j * peval l x == fold_right Qplus 0 (map (fun cj => fst cj * pow x (snd cj)) (indexed l j)).
Proof.
  revert j; induction l as [|c l IH]; intro j; cbn [peval indexed map fold_right fst snd]; [ring|].
  rewrite <- IH. cbn [pow]. set (P := pow x j). ring.
Qed.

(** ** Vector exponential polynomials: terms (c, a, b) meaning t^a b^t c *)
Definition vterm := (vec * nat * Q)%type.
Definition tval (a : nat) (b : Q) (t : nat) : Q := pow (qn t) a * pow b t.
Definition veval (p : list vterm) (t : nat) : vec :=
  fold_right vadd [] (map (fun term => match term with (c, a, b) => vscale (tval a b t) c end) p).

Lemma vsum_app (xs ys : list vec) : veq (fold_right vadd [] (xs ++ ys)) (vadd (fold_right vadd [] xs) (fold_right vadd [] ys)).
Proof.
  induction xs as [|x xs IH]; cbn [app fold_right].
  - intro k. rewrite coord_vadd, coord_nil. ring.
  - rewrite IH. intro k. rewrite !coord_vadd. ring.
Qed.

Lemma veval_app p q t : veq (veval (p ++ q) t) (vadd (veval p t) (veval q t)).
Proof. unfold veval. rewrite map_app. apply vsum_app. Qed.

Lemma veval_nil t : veval [] t = [].
Proof. reflexivity. Qed.
Lemma veval_cons c a b p t : veval ((c, a, b) :: p) t = vadd (vscale (tval a b t) c) (veval p t).
Proof. reflexivity. Qed.

Lemma coord_veval p t k : coord (veval p t) k ==
  fold_right Qplus 0 (map (fun term => match term with (c, a, b) => tval a b t * coord c k end) p).
Proof.
  induction p as [|[[c a] b] p IH]; [rewrite veval_nil, coord_nil; reflexivity|].
  rewrite veval_cons, coord_vadd, coord_vscale, IH. reflexivity.
Qed.

Lemma dot_veval u p t : dot u (veval p t) ==
  fold_right Qplus 0 (map (fun term => match term with (c, a, b) => tval a b t * dot u c end) p).
Proof.
  induction p as [|[[c a] b] p IH]; [rewrite veval_nil, dot_nil_r; reflexivity|].
  rewrite veval_cons, dot_vadd_r, dot_vscale_r, IH. reflexivity.
Qed.

(** Scaling every coefficient *)
Definition tscale (q : Q) (p : list vterm) : list vterm := map (fun term => match term with (c, a, b) => (vscale q c, a, b) end) p.
Lemma veval_tscale q p t : veq (veval (tscale q p) t) (vscale q (veval p t)).
Proof.
  intro k. rewrite coord_vscale, !coord_veval. unfold tscale. rewrite map_map.
  induction p as [|[[c a] b] p IH]; cbn [map fold_right]; [ring|]. rewrite IH, coord_vscale. ring.
Qed.

(** ** The shift t -> t + 1: (t+1)^a b^(t+1) c = sum_j binomial(a, j) t^j b^t (b c) *)
Definition shift_term (term : vterm) : list vterm :=
  match term with (c, a, b) => map (fun cj => (vscale (fst cj * b) c, snd cj, b)) (indexed (binomial_coeffs a) 0) end.
Definition shift (p : list vterm) : list vterm := flat_map shift_term p.

Lemma veval_shift p t : veq (veval (shift p) t) (veval p (S t)).
Proof.
  induction p as [|[[c a] b] p IH]; [reflexivity|].
  unfold shift. cbn [flat_map]. fold (shift p). rewrite veval_app, IH, veval_cons.
  apply vadd_proper; [|reflexivity].
  intro k. rewrite coord_vscale, coord_veval. unfold shift_term, tval. rewrite map_map.
  assert (E : pow (qn (S t)) a * pow b (S t) == pow b t * b * (pow (qn t) 0 * peval (binomial_coeffs a) (qn t))).
  { rewrite qn_succ, peval_binomial. cbn [pow]. ring. }
  rewrite E, peval_indexed.
  generalize (indexed (binomial_coeffs a) 0). intro l.
  induction l as [|[x j] l IHl]; cbn [map fold_right fst snd]; [ring|].
  rewrite IHl, coord_vscale. ring.
Qed.

(** ** Normal forms: terms of equal (a, b) merged. A polynomial whose merged coefficients all
    vanish is zero for every t. *)
Fixpoint vinsert (term : vterm) (l : list vterm) : list vterm :=
  match l with
  | [] => [term]
  | term' :: l' =>
      match term, term' with
      | (c, a, b), (c', a', b') =>
          if Nat.eqb a a' && Qeq_bool b b' then (vadd c c', a', b') :: l' else term' :: vinsert term l'
      end
  end.
Definition vnormal (p : list vterm) : list vterm := fold_right vinsert [] p.
Definition vzero (p : list vterm) : bool :=
  forallb (fun term => match term with (c, _, _) => veqb c [] end) (vnormal p).

Lemma veval_vinsert c a b l t : veq (veval (vinsert (c, a, b) l) t) (vadd (vscale (tval a b t) c) (veval l t)).
Proof.
  induction l as [|[[c' a'] b'] l IH]; cbn [vinsert].
  - rewrite veval_cons. reflexivity.
  - destruct (Nat.eqb a a' && Qeq_bool b b') eqn:E.
    + apply andb_true_iff in E as [Ea Eb]. apply Nat.eqb_eq in Ea. apply Qeq_bool_iff in Eb. subst a'.
      rewrite !veval_cons. intro k. rewrite !coord_vadd, !coord_vscale, coord_vadd. unfold tval. rewrite Eb. ring.
    + rewrite !veval_cons, IH. intro k. rewrite !coord_vadd, !coord_vscale. ring.
Qed.

Lemma veval_vnormal p t : veq (veval (vnormal p) t) (veval p t).
Proof.
  induction p as [|[[c a] b] p IH]; [reflexivity|]. unfold vnormal. cbn [fold_right]. fold (vnormal p).
  rewrite veval_vinsert, IH, veval_cons. reflexivity.
Qed.

Lemma vzero_correct p : vzero p = true -> forall t, veq (veval p t) [].
Proof.
  intros H t. rewrite <- (veval_vnormal p t). unfold vzero in H. revert H. generalize (vnormal p). intro l.
  induction l as [|[[c a] b] l IH]; intro H; [reflexivity|].
  cbn [forallb] in H. apply andb_true_iff in H as [H1 H2]. apply veqb_correct in H1.
  rewrite veval_cons, H1, (IH H2). intro k. rewrite coord_vadd, coord_vscale, !coord_nil. ring.
Qed.

(** ** Scalar exponential polynomials, and the score of two paths *)
Definition sterm := (Q * nat * Q)%type.
Definition seval (f : list sterm) (t : nat) : Q :=
  fold_right Qplus 0 (map (fun term => match term with (c, a, b) => c * tval a b t end) f).

Lemma qsum_app (l m : list Q) : fold_right Qplus 0 (l ++ m) == fold_right Qplus 0 l + fold_right Qplus 0 m.
Proof. induction l as [|x l IH]; cbn [app fold_right]; [ring | rewrite IH; ring]. Qed.

Lemma seval_app f g t : seval (f ++ g) t == seval f t + seval g t.
Proof. unfold seval. rewrite map_app. apply qsum_app. Qed.

Definition sscale (q : Q) (f : list sterm) : list sterm := map (fun term => match term with (c, a, b) => (q * c, a, b) end) f.
Lemma seval_sscale q f t : seval (sscale q f) t == q * seval f t.
Proof. unfold seval, sscale. rewrite map_map. induction f as [|[[c a] b] f IH]; cbn [map fold_right]; [ring | rewrite IH; ring]. Qed.

Lemma tval_mul a b a' b' t : tval (a + a') (b * b') t == tval a b t * tval a' b' t.
Proof. unfold tval. rewrite pow_add, pow_mul_base. ring. Qed.

(** <M p(t), q(t)> as a scalar exponential polynomial *)
Definition score_terms (M : list vec) (p q : list vterm) : list sterm :=
  flat_map (fun term => match term with (c, a, b) =>
    let u := matvec M c in
    map (fun term' => match term' with (c', a', b') => (dot u c', (a + a')%nat, b * b') end) q end) p.

Lemma matvec_veval M p t : veq (matvec M (veval p t))
  (veval (map (fun term => match term with (c, a, b) => (matvec M c, a, b) end) p) t).
Proof.
  induction p as [|[[c a] b] p IH].
  - intro r. rewrite coord_matvec, veval_nil, dot_nil_r, coord_nil. reflexivity.
  - cbn [map]. rewrite !veval_cons, matvec_vadd, matvec_vscale, IH. reflexivity.
Qed.

Lemma seval_score_row M c a b q t :
  seval (map (fun term' => match term' with (c', a', b') => (dot (matvec M c) c', (a + a')%nat, b * b') end) q) t ==
  tval a b t * dot (matvec M c) (veval q t).
Proof.
  rewrite dot_veval. unfold seval. rewrite map_map.
  induction q as [|[[c' a'] b'] q IHq]; cbn [map fold_right]; [ring|].
  rewrite IHq, tval_mul. ring.
Qed.

Lemma seval_score_terms M p q t : seval (score_terms M p q) t == dot (matvec M (veval p t)) (veval q t).
Proof.
  rewrite (dot_veq_l _ _ _ (matvec_veval M p t)).
  induction p as [|[[c a] b] p IH].
  - cbn. reflexivity.
  - unfold score_terms in *. cbn [flat_map map]. rewrite seval_app, IH, veval_cons, dot_vadd_l, dot_vscale_l.
    apply Qplus_comp; [|reflexivity]. apply seval_score_row.
Qed.

Fixpoint sinsert (term : sterm) (l : list sterm) : list sterm :=
  match l with
  | [] => [term]
  | term' :: l' =>
      match term, term' with
      | (c, a, b), (c', a', b') =>
          if Nat.eqb a a' && Qeq_bool b b' then (c + c', a', b') :: l' else term' :: sinsert term l'
      end
  end.
Definition snormal (f : list sterm) : list sterm := fold_right sinsert [] f.
Definition szero (f : list sterm) : bool := forallb (fun term => match term with (c, _, _) => Qeq_bool c 0 end) (snormal f).

Lemma seval_cons c a b f t : seval ((c, a, b) :: f) t = c * tval a b t + seval f t.
Proof. reflexivity. Qed.

Lemma seval_sinsert c a b l t : seval (sinsert (c, a, b) l) t == c * tval a b t + seval l t.
Proof.
  induction l as [|[[c' a'] b'] l IH]; cbn [sinsert].
  - rewrite !seval_cons. reflexivity.
  - destruct (Nat.eqb a a' && Qeq_bool b b') eqn:E.
    + apply andb_true_iff in E as [Ea Eb]. apply Nat.eqb_eq in Ea. apply Qeq_bool_iff in Eb. subst a'.
      rewrite !seval_cons. unfold tval. rewrite Eb. ring.
    + rewrite !seval_cons, IH. ring.
Qed.

Lemma seval_snormal f t : seval (snormal f) t == seval f t.
Proof.
  induction f as [|[[c a] b] f IH]; [reflexivity|]. unfold snormal. cbn [fold_right]. fold (snormal f).
  rewrite seval_sinsert, IH, seval_cons. reflexivity.
Qed.

Lemma szero_correct f : szero f = true -> forall t, seval f t == 0.
Proof.
  intros H t. rewrite <- (seval_snormal f t). unfold szero in H. revert H. generalize (snormal f). intro l.
  induction l as [|[[c a] b] l IH]; intro H; [reflexivity|].
  cbn [forallb] in H. apply andb_true_iff in H as [H1 H2]. apply Qeq_bool_iff in H1.
  rewrite seval_cons, H1, (IH H2). ring.
Qed.

(** ** Signs for every t >= 0, without the exponential function (docs/theory.md §8)

    f(t) > 0 is evaluated exactly for t < T; from T on one term h = c t^a b^t dominates: c > 0,
    every other term c_i t^(a_i) b_i^t has 0 < b_i and either a_i <= a and b_i <= b, or
    (a_i - a) b <= (b - b_i) (T + 1) (Bernoulli), so that its ratio to h does not grow from T
    on; and sum_i |c_i| T^(a_i) b_i^T < c T^a b^T. *)
Definition qlt (x y : Q) : bool := negb (Qle_bool y x).
Lemma qlt_correct x y : qlt x y = true -> x < y.
Proof. unfold qlt. intro H. apply negb_true_iff in H. apply Qnot_le_lt. intro E. apply Qle_bool_iff in E. congruence. Qed.

Definition dominated (h : sterm) (T : nat) (term : sterm) : bool :=
  match h, term with
  | (_, a, b), (_, ai, bi) =>
      qlt 0 bi && (if Nat.leb ai a then Qle_bool bi b else Qle_bool (qn (ai - a) * b) ((b - bi) * (qn T + 1)))
  end.
Definition bound_sum (f : list sterm) (T : nat) : Q :=
  fold_right Qplus 0 (map (fun term => match term with (c, a, b) => Qabs c * tval a b T end) f).
Definition remove_at {X} (i : nat) (l : list X) : list X := firstn i l ++ skipn (S i) l.

Definition head_ok (f : list sterm) (T : nat) (i : nat) : bool :=
  match nth i f (0, O, 0) with
  | (c, a, b) =>
      qlt 0 c && qlt 0 b && forallb (dominated (c, a, b) T) (remove_at i f) &&
      qlt (bound_sum (remove_at i f) T) (c * tval a b T)
  end.
Definition positive_from (f : list sterm) (T : nat) : bool :=
  Nat.leb 1 T && existsb (head_ok f T) (seq 0 (length f)).
Definition positive_always (f : list sterm) (T : nat) : bool :=
  positive_from f T && forallb (fun t => qlt 0 (seval f t)) (seq 0 T).

(** Terms with a zero coefficient, which a normal form may keep, left out. *)
Definition drop_zeros (f : list sterm) : list sterm := filter (fun term => match term with (c, _, _) => negb (Qeq_bool c 0) end) f.

Lemma pow_le_mono x y n : 0 <= x -> x <= y -> pow x n <= pow y n.
Proof.
  intros H0 H1. induction n; cbn [pow]; [apply Qle_refl|].
  apply Qmult_le_compat_nonneg; split; [exact H0 | exact H1 | apply pow_nonneg, H0 | exact IHn].
Qed.

(** Bernoulli's inequality, with no division: u^e (u + 1) >= (u + 1)^e (u + 1 - e). *)
Lemma bernoulli_free u e : 0 <= u -> pow (u + 1) e * (u + 1 - qn e) <= pow u e * (u + 1).
Proof.
  intro Hu. induction e as [|e IH]; cbn [pow].
  - change (qn 0) with 0. lra.
  - rewrite qn_succ.
    assert (Hp : 0 <= pow (u + 1) e) by (apply pow_nonneg; lra).
    assert (H1 : u * (pow (u + 1) e * (u + 1 - qn e)) <= u * (pow u e * (u + 1))).
    { rewrite !(Qmult_comm u). apply Qmult_le_compat_r; assumption. }
    assert (H2 : 0 <= pow (u + 1) e * qn e) by (apply Qmult_le_0_compat; [exact Hp | apply qn_nonneg]).
    setoid_replace ((u + 1) * pow (u + 1) e * (u + 1 - (qn e + 1)))
      with (u * (pow (u + 1) e * (u + 1 - qn e)) - pow (u + 1) e * qn e) by ring.
    setoid_replace (u * pow u e * (u + 1)) with (u * (pow u e * (u + 1))) by ring. lra.
Qed.

Lemma qn_le m n : (m <= n)%nat -> qn m <= qn n.
Proof. intro H. unfold qn. rewrite <- Zle_Qle. lia. Qed.

Lemma tval_succ a b t : tval a b (S t) == pow (qn t + 1) a * (b * pow b t).
Proof. unfold tval. rewrite qn_succ. reflexivity. Qed.

Lemma tval_nonneg a b t : 0 <= b -> 0 <= tval a b t.
Proof. intro H. unfold tval. apply Qmult_le_0_compat; apply pow_nonneg; [apply qn_nonneg | exact H]. Qed.

Lemma tval_pos a b t : (1 <= t)%nat -> 0 < b -> 0 < tval a b t.
Proof.
  intros Ht Hb. unfold tval. apply Qmult_lt_0_compat; apply pow_pos; [|exact Hb].
  apply Qlt_le_trans with (qn 1); [reflexivity | apply qn_le, Ht].
Qed.

Lemma nonpos_times x y : x <= 0 -> 0 <= y -> x * y <= 0.
Proof. intros Hx Hy. apply Qle_trans with (0 * y); [apply Qmult_le_compat_r; assumption | lra]. Qed.

(** The ratio of a dominated term to the head does not grow from T on (one step). *)
Lemma one_step c a b ci ai bi T t : (T <= t)%nat -> 0 < b ->
  dominated (c, a, b) T (ci, ai, bi) = true ->
  tval ai bi (S t) * tval a b t <= tval ai bi t * tval a b (S t).
Proof.
  intros HT Hb Hd. unfold dominated in Hd. apply andb_true_iff in Hd as [Hbi Hcase]. apply qlt_correct in Hbi.
  rewrite !tval_succ. unfold tval.
  set (u := qn t). set (w := u + 1).
  assert (Hu : 0 <= u) by apply qn_nonneg. assert (Hw : 0 < w) by (unfold w; lra).
  set (G := pow bi t * pow b t).
  assert (HG : 0 <= G) by (apply Qmult_le_0_compat; apply pow_nonneg; lra).
  destruct (Nat.leb ai a) eqn:Ea.
  - apply Nat.leb_le in Ea. apply Qle_bool_iff in Hcase.
    replace a with (ai + (a - ai))%nat by lia. rewrite !pow_add.
    set (e := (a - ai)%nat). set (P := pow w ai * pow u ai).
    assert (HP : 0 <= P) by (apply Qmult_le_0_compat; apply pow_nonneg; lra).
    assert (H1 : bi * pow u e <= b * pow w e).
    { apply Qmult_le_compat_nonneg; split; [lra | exact Hcase | apply pow_nonneg, Hu | apply pow_le_mono; unfold w; lra]. }
    setoid_replace (pow w ai * (bi * pow bi t) * (pow u ai * pow u e * pow b t)) with (G * P * (bi * pow u e)) by (unfold G, P; ring).
    setoid_replace (pow u ai * pow bi t * (pow w ai * pow w e * (b * pow b t))) with (G * P * (b * pow w e)) by (unfold G, P; ring).
    rewrite !(Qmult_comm (G * P)). apply Qmult_le_compat_r; [exact H1 | apply Qmult_le_0_compat; assumption].
  - apply Nat.leb_gt in Ea. apply Qle_bool_iff in Hcase.
    replace ai with (a + (ai - a))%nat by lia. replace (a + (ai - a) - a)%nat with (ai - a)%nat in Hcase by lia.
    rewrite !pow_add. set (e := (ai - a)%nat) in *. set (P := pow w a * pow u a).
    assert (HP : 0 <= P) by (apply Qmult_le_0_compat; apply pow_nonneg; lra).
    assert (He : 1 <= qn e) by (apply (qn_le 1); unfold e; lia).
    assert (Hgap : 0 <= b - bi).
    { destruct (Qlt_le_dec (b - bi) 0) as [Hn|Hn]; [|exact Hn]. exfalso.
      assert (qn e * b > 0) by (apply Qmult_lt_0_compat; lra).
      assert ((b - bi) * (qn T + 1) <= 0) by (apply nonpos_times; [lra | pose proof (qn_nonneg T); lra]).
      lra. }
    assert (Hmono : (b - bi) * (qn T + 1) <= (b - bi) * w).
    { rewrite !(Qmult_comm (b - bi)). apply Qmult_le_compat_r; [unfold w, u; pose proof (qn_le _ _ HT); lra | exact Hgap]. }
    pose proof (bernoulli_free u e Hu) as HB. fold w in HB.
    assert (Hwe : 0 <= pow w e) by (apply pow_nonneg; lra).
    (* bi w^e w <= b (w - e) w^e <= b u^e w *)
    assert (H2 : bi * w * pow w e <= b * (w - qn e) * pow w e).
    { apply Qmult_le_compat_r; [lra | exact Hwe]. }
    assert (H3 : b * (w - qn e) * pow w e <= b * (pow u e * w)).
    { setoid_replace (b * (w - qn e) * pow w e) with (b * (pow w e * (w - qn e))) by ring.
      rewrite !(Qmult_comm b). apply Qmult_le_compat_r; [exact HB | lra]. }
    assert (H1 : bi * pow w e <= b * pow u e).
    { apply (Qmult_le_r _ _ w Hw). lra. }
    setoid_replace (pow w a * pow w e * (bi * pow bi t) * (pow u a * pow b t)) with (G * P * (bi * pow w e)) by (unfold G, P; ring).
    setoid_replace (pow u a * pow u e * pow bi t * (pow w a * (b * pow b t))) with (G * P * (b * pow u e)) by (unfold G, P; ring).
    rewrite !(Qmult_comm (G * P)). apply Qmult_le_compat_r; [exact H1 | apply Qmult_le_0_compat; assumption].
Qed.

Lemma ratio_mono c a b ci ai bi T s : (1 <= T)%nat -> 0 < b ->
  dominated (c, a, b) T (ci, ai, bi) = true ->
  tval ai bi (T + s) * tval a b T <= tval ai bi T * tval a b (T + s).
Proof.
  intros HT Hb Hd. assert (Hbi : 0 < bi).
  { unfold dominated in Hd. apply andb_true_iff in Hd as [H _]. apply qlt_correct, H. }
  induction s as [|s IH].
  - rewrite Nat.add_0_r. apply Qle_refl.
  - rewrite Nat.add_succ_r. set (t := (T + s)%nat) in *.
    assert (Ht : 0 < tval a b t) by (apply tval_pos; [unfold t; lia | exact Hb]).
    assert (H1 := one_step c a b ci ai bi T t ltac:(unfold t; lia) Hb Hd).
    assert (HT0 : 0 <= tval a b T) by (apply tval_nonneg; lra).
    assert (HS0 : 0 <= tval a b (S t)) by (apply tval_nonneg; lra).
    apply (Qmult_le_r _ _ (tval a b t) Ht).
    apply Qle_trans with (tval ai bi t * tval a b (S t) * tval a b T).
    + setoid_replace (tval ai bi (S t) * tval a b T * tval a b t)
        with (tval ai bi (S t) * tval a b t * tval a b T) by ring.
      apply Qmult_le_compat_r; assumption.
    + setoid_replace (tval ai bi t * tval a b (S t) * tval a b T)
        with (tval ai bi t * tval a b T * tval a b (S t)) by ring.
      setoid_replace (tval ai bi T * tval a b (S t) * tval a b t)
        with (tval ai bi T * tval a b t * tval a b (S t)) by ring.
      apply Qmult_le_compat_r; assumption.
Qed.

Lemma remove_at_split {X} (l : list X) i d : (i < length l)%nat ->
  l = firstn i l ++ nth i l d :: skipn (S i) l.
Proof.
  revert i; induction l as [|x l IH]; intros [|i] H; cbn in *; try lia; [reflexivity|].
  f_equal. apply IH. lia.
Qed.

Lemma seval_remove f i t : (i < length f)%nat ->
  seval f t == (match nth i f (0, O, 0) with (c, a, b) => c * tval a b t end) + seval (remove_at i f) t.
Proof.
  intro H. rewrite (remove_at_split f i (0, O, 0) H) at 1. unfold remove_at.
  rewrite !seval_app. destruct (nth i f (0, O, 0)) as [[c a] b]. rewrite seval_cons. ring.
Qed.

Lemma bound_sum_below g t : Forall (fun term => match term with (_, _, b) => 0 < b end) g ->
  - bound_sum g t <= seval g t.
Proof.
  induction g as [|[[c a] b] g IH]; intro H; [unfold bound_sum, seval; simpl; lra|].
  inversion H as [|? ? Hb Hg]; subst. specialize (IH Hg).
  unfold bound_sum, seval in *. cbn [map fold_right].
  assert (Hx : 0 <= tval a b t) by (apply tval_nonneg; lra).
  assert (- (Qabs c * tval a b t) <= c * tval a b t).
  { setoid_replace (- (Qabs c * tval a b t)) with (- Qabs c * tval a b t) by ring.
    apply Qmult_le_compat_r; [|exact Hx]. pose proof (Qle_Qabs (- c)). rewrite Qabs_opp in H0. lra. }
  lra.
Qed.

Lemma bound_sum_cons c a b g t : bound_sum ((c, a, b) :: g) t = Qabs c * tval a b t + bound_sum g t.
Proof. reflexivity. Qed.

Lemma bound_sum_mono c a b g T t : (1 <= T)%nat -> (T <= t)%nat -> 0 < b ->
  forallb (dominated (c, a, b) T) g = true ->
  bound_sum g t * tval a b T <= bound_sum g T * tval a b t.
Proof.
  intros H1 HT Hb Hg. replace t with (T + (t - T))%nat by lia. set (s := (t - T)%nat).
  induction g as [|[[ci ai] bi] g IH]; [unfold bound_sum; simpl; lra|].
  cbn [forallb] in Hg. apply andb_true_iff in Hg as [Hd Hg]. specialize (IH Hg).
  rewrite !bound_sum_cons.
  pose proof (ratio_mono c a b ci ai bi T s H1 Hb Hd) as Hr.
  assert (Hc : 0 <= Qabs ci) by apply Qabs_nonneg.
  assert (H2 : Qabs ci * tval ai bi (T + s) * tval a b T <= Qabs ci * tval ai bi T * tval a b (T + s)).
  { rewrite <- !Qmult_assoc. rewrite !(Qmult_comm (Qabs ci)). apply Qmult_le_compat_r; assumption. }
  set (X := bound_sum g (T + s)) in *. set (Y := bound_sum g T) in *.
  setoid_replace ((Qabs ci * tval ai bi (T + s) + X) * tval a b T)
    with (Qabs ci * tval ai bi (T + s) * tval a b T + X * tval a b T) by ring.
  setoid_replace ((Qabs ci * tval ai bi T + Y) * tval a b (T + s))
    with (Qabs ci * tval ai bi T * tval a b (T + s) + Y * tval a b (T + s)) by ring.
  apply Qplus_le_compat; assumption.
Qed.

Theorem positive_from_sound f T : positive_from f T = true -> forall t, (T <= t)%nat -> 0 < seval f t.
Proof.
  unfold positive_from. intros H t Ht. apply andb_true_iff in H as [H1 H]. apply Nat.leb_le in H1.
  apply existsb_exists in H as (i & Hi & Hh). apply in_seq in Hi.
  rewrite (seval_remove f i t) by lia. unfold head_ok in Hh.
  destruct (nth i f (0, O, 0)) as [[c a] b] eqn:E.
  rewrite !andb_true_iff in Hh. destruct Hh as (((Hc & Hb) & Hd) & Hs).
  apply qlt_correct in Hc, Hb, Hs.
  set (g := remove_at i f) in *.
  assert (Hpos : Forall (fun term => match term with (_, _, b) => 0 < b end) g).
  { apply Forall_forall. intros [[ci ai] bi] Hin. rewrite forallb_forall in Hd. specialize (Hd _ Hin).
    unfold dominated in Hd. apply andb_true_iff in Hd as [Hd _]. apply qlt_correct, Hd. }
  pose proof (bound_sum_below g t Hpos) as Hlow.
  pose proof (bound_sum_mono c a b g T t H1 Ht Hb Hd) as Hmono.
  assert (HHt : 0 < tval a b t) by (apply tval_pos; [lia | exact Hb]).
  assert (HHT : 0 < tval a b T) by (apply tval_pos; [lia | exact Hb]).
  (* bound_sum g t * H(T) <= bound_sum g T * H(t) < c H(T) H(t) *)
  assert (Hlt : bound_sum g t < c * tval a b t).
  { apply (Qmult_lt_r _ _ (tval a b T) HHT).
    apply Qle_lt_trans with (bound_sum g T * tval a b t); [exact Hmono|].
    setoid_replace (c * tval a b t * tval a b T) with (c * tval a b T * tval a b t) by ring.
    apply Qmult_lt_r; assumption. }
  lra.
Qed.

Theorem positive_always_sound f T : positive_always f T = true -> forall t, 0 < seval f t.
Proof.
  unfold positive_always. intros H t. apply andb_true_iff in H as [Hf Hs]. rewrite forallb_forall in Hs.
  destruct (Nat.lt_ge_cases t T) as [Hlt|Hge].
  - apply qlt_correct, Hs, in_seq. lia.
  - apply (positive_from_sound f T Hf t Hge).
Qed.

Lemma seval_drop_zeros f t : seval (drop_zeros f) t == seval f t.
Proof.
  induction f as [|[[c a] b] f IH]; [reflexivity|]. unfold drop_zeros in *. cbn [filter].
  destruct (Qeq_bool c 0) eqn:E; cbn [negb]; rewrite ?seval_cons, IH; [|reflexivity].
  apply Qeq_bool_iff in E. rewrite E. ring.
Qed.
