(** * D2 (the A-norm never decreases, for A symmetric positive semidefinite), a certificate
    that a matrix is symmetric positive semidefinite (A = sum_i d_i v_i v_i^T with d_i >= 0, as
    an exact LDL^T gives, checked entry by entry), and a checker for T4. *)

From Coq Require Import QArith Qabs List Lia Lqa Setoid Morphisms Bool.
From HardmaxVerify Require Import Statement Algebra Dynamics Polytope.
Import ListNotations.
Open Scope Q_scope.

Definition bil (M : list vec) (x y : vec) : Q := dot (matvec M x) y.

Lemma bil_vadd_l M x1 x2 y : bil M (vadd x1 x2) y == bil M x1 y + bil M x2 y.
Proof. unfold bil. rewrite matvec_vadd, dot_vadd_l. reflexivity. Qed.
Lemma bil_vscale_l M q x y : bil M (vscale q x) y == q * bil M x y.
Proof. unfold bil. rewrite matvec_vscale, dot_vscale_l. reflexivity. Qed.
Lemma bil_vadd_r M x y1 y2 : bil M x (vadd y1 y2) == bil M x y1 + bil M x y2.
Proof. unfold bil. apply dot_vadd_r. Qed.
Lemma bil_vscale_r M q x y : bil M x (vscale q y) == q * bil M x y.
Proof. unfold bil. apply dot_vscale_r. Qed.
#[global] Instance bil_proper M : Proper (veq ==> veq ==> Qeq) (bil M).
Proof. intros x x' Hx y y' Hy. unfold bil. rewrite Hx, Hy. reflexivity. Qed.

Lemma dot_mean_ge u xs c : xs <> [] -> (forall x, In x xs -> c <= dot u x) -> c <= dot u (mean xs).
Proof.
  intros Hne H.
  assert (Hle : dot (vscale (-1) u) (mean xs) <= - c).
  { apply dot_mean_le; [exact Hne|]. intros x Hx. rewrite dot_vscale_l. specialize (H x Hx). lra. }
  rewrite dot_vscale_l in Hle. lra.
Qed.

(** ** D2 *)
Theorem D2 : D2_statement.
Proof.
  intros c k i Ha [Hsym Hpsd] Hi. unfold position. cbn [layers].
  set (Z := layers c k).
  assert (Hn : (i < length Z)%nat) by (unfold Z; rewrite length_layers; exact Hi).
  change (nth i (layer c Z) []) with (zpos (layer c Z) i). change (nth i Z []) with (zpos Z i).
  rewrite zpos_layer by exact Hn.
  set (z := zpos Z i). set (C := attention (A c) Z i). set (m := mean (map (zpos Z) C)).
  set (g := alpha c / (1 + alpha c)).
  assert (Hg : 0 <= g) by (unfold g; apply Qle_shift_div_l; [apply one_plus_pos, Ha | lra]).
  assert (Hz' : veq (update (alpha c) z m) (vadd z (vscale g (vsub m z)))).
  { intro a. rewrite coord_update, coord_vadd, coord_vscale, coord_vsub. unfold g. field. apply one_plus_nonzero, Ha. }
  fold (bil (A c) z z). change (dot (matvec (A c) ?x) ?y) with (bil (A c) x y).
  rewrite Hz'. set (h := vsub m z).
  (* <A z, h> >= 0: z's own score is at most the top, every member of C scores the top *)
  assert (Hzh : 0 <= bil (A c) z h).
  { unfold h, vsub. rewrite bil_vadd_r, bil_vscale_r.
    assert (Htop : top (A c) Z i <= bil (A c) z m).
    { unfold bil, m. apply dot_mean_ge.
      - intro E. apply map_eq_nil in E. exact (attention_not_nil _ _ _ Hn E).
      - intros x Hx. apply in_map_iff in Hx as (j & <- & Hj). unfold z.
        rewrite <- (in_attention_top (A c) Z i j Hj). apply Qle_refl. }
    assert (Hself : bil (A c) z z <= top (A c) Z i) by (apply score_le_top, Hn).
    lra. }
  assert (Hhz : bil (A c) h z == bil (A c) z h) by (unfold bil; apply Hsym).
  assert (Hhh : 0 <= bil (A c) h h) by apply Hpsd.
  rewrite !bil_vadd_l, !bil_vadd_r, !bil_vscale_l, !bil_vscale_r, Hhz.
  assert (0 <= g * bil (A c) z h) by (apply Qmult_le_0_compat; assumption).
  assert (0 <= g * (g * bil (A c) h h)) by (apply Qmult_le_0_compat; [|apply Qmult_le_0_compat]; assumption).
  lra.
Qed.

(** ** Symmetric positive semidefinite matrices: sum_i d_i v_i v_i^T with d_i >= 0 *)
Definition gram_row (ds : list Q) (vs : list vec) (r : nat) : vec :=
  fold_right vadd [] (map (fun dv => vscale (fst dv * coord (snd dv) r) (snd dv)) (combine ds vs)).

Definition gram_apply (ds : list Q) (vs : list vec) (x : vec) : vec :=
  fold_right vadd [] (map (fun dv => vscale (fst dv * dot (snd dv) x) (snd dv)) (combine ds vs)).

Definition check_gram (M : list vec) (ds : list Q) (vs : list vec) : bool :=
  forallb (Qle_bool 0) ds && Nat.eqb (length ds) (length vs) &&
  forallb (fun r => veqb (nth r M []) (gram_row ds vs r))
          (seq 0 (Nat.max (length M) (fold_right Nat.max 0%nat (map (@length Q) vs)))).

Lemma coord_overflow (x : vec) a : (length x <= a)%nat -> coord x a = 0.
Proof. intro H. unfold coord. apply nth_overflow, H. Qed.

Lemma gram_row_overflow ds vs r : (fold_right Nat.max 0%nat (map (@length Q) vs) <= r)%nat -> veq [] (gram_row ds vs r).
Proof.
  unfold gram_row. revert ds. induction vs as [|v vs IH]; intros [|d ds] Hr; cbn [combine map fold_right]; try reflexivity.
  cbn [map fold_right] in Hr. cbn [fst snd]. rewrite (coord_overflow v r) by lia.
  intro a. rewrite coord_vadd, coord_vscale, coord_nil. rewrite <- (IH ds ltac:(lia) a), coord_nil. ring.
Qed.

Lemma matvec_gram M ds vs : (forall r, veq (nth r M []) (gram_row ds vs r)) ->
  forall x, veq (matvec M x) (gram_apply ds vs x).
Proof.
  intros H x r. rewrite coord_matvec, (H r). unfold gram_row, gram_apply.
  generalize (combine ds vs). intro l. induction l as [|[d v] l IH]; cbn [map fold_right fst snd].
  - rewrite dot_nil_l, coord_nil. reflexivity.
  - rewrite dot_vadd_l, coord_vadd, dot_vscale_l, coord_vscale, IH. ring.
Qed.

Lemma dot_gram_apply ds vs x y :
  dot (gram_apply ds vs x) y == fold_right Qplus 0 (map (fun dv => fst dv * dot (snd dv) x * dot (snd dv) y) (combine ds vs)).
Proof.
  unfold gram_apply. generalize (combine ds vs). intro l.
  induction l as [|[d v] l IH]; cbn [map fold_right fst snd].
  - rewrite dot_nil_l. reflexivity.
  - rewrite dot_vadd_l, dot_vscale_l, IH. rewrite (dot_comm v y). ring.
Qed.

Theorem gram_sound M ds vs : check_gram M ds vs = true -> symmetric_psd M.
Proof.
  unfold check_gram. rewrite !andb_true_iff, !forallb_forall. intros ((Hd & _) & Hrows).
  assert (Hall : forall r, veq (nth r M []) (gram_row ds vs r)).
  { intro r. destruct (Nat.lt_ge_cases r (Nat.max (length M) (fold_right Nat.max 0%nat (map (@length Q) vs)))) as [Hr|Hr].
    - apply veqb_correct, Hrows, in_seq. lia.
    - rewrite nth_overflow by lia. apply gram_row_overflow. lia. }
  pose proof (matvec_gram M ds vs Hall) as HM.
  assert (Hpos : forall dv, In dv (combine ds vs) -> 0 <= fst dv).
  { intros [d v] Hin. apply in_combine_l in Hin. apply Qle_bool_iff, Hd, Hin. }
  split.
  - intros x y. rewrite (HM x), (HM y), !dot_gram_apply. apply qsum_map_ext. intros dv _. ring.
  - intro x. rewrite (HM x), dot_gram_apply. revert Hpos. generalize (combine ds vs). intro l.
    induction l as [|[d v] l IH]; intro Hpos; cbn [map fold_right fst snd]; [apply Qle_refl|].
    assert (0 <= d) by apply (Hpos (d, v) (or_introl eq_refl)).
    assert (0 <= d * dot v x * dot v x).
    { setoid_replace (d * dot v x * dot v x) with (d * (dot v x * dot v x)) by ring.
      apply Qmult_le_0_compat; [assumption|]. destruct (Qlt_le_dec (dot v x) 0) as [Hn|Hn].
      - setoid_replace (dot v x * dot v x) with ((- dot v x) * (- dot v x)) by ring. apply Qmult_le_0_compat; lra.
      - apply Qmult_le_0_compat; assumption. }
    specialize (IH (fun dv H => Hpos dv (or_intror H))). lra.
Qed.

(** ** T4: a non-vertex limit p minimises the A-norm over the face of K exposed by v

    For every leader limit u: <v, u> <= <v, p>, and where equal (u on the face) the optimality
    condition <A p, u> >= <A p, p>. Then every x of the face is a convex combination of the
    face's leaders, so <A p, x - p> >= 0 and <A x, x> = <A p, p> + 2 <A p, x - p> + <A (x-p), x-p>
    >= <A p, p>. *)
Definition is_vertex_limit (fates : list fate) (limits : list vec) (i : nat) : bool :=
  existsb (fun j => is_leader_b (nth j fates (Leader 0)) && veqb (nth i limits []) (nth j limits []))
          (seq 0 (length fates)).

Definition check_face (M : list vec) (K : list vec) (p v : vec) : bool :=
  let c := dot v p in
  let w := matvec M p in
  let s := dot w p in
  forallb (fun u => Qle_bool (dot v u) c && (if Qeq_bool (dot v u) c then Qle_bool s (dot w u) else true)) K.

Definition check_T4 (M : list vec) (fates : list fate) (limits : list vec) (faces : list vec) : bool :=
  let K := leader_limits fates limits (length fates) in
  forallb (fun i => is_vertex_limit fates limits i || check_face M K (nth i limits []) (nth i faces []))
          (seq 0 (length fates)).

(** Nonnegative terms summing to zero are all zero. *)
Lemma sum_nonneg_zero {T} (f : T -> Q) l : (forall x, In x l -> 0 <= f x) ->
  fold_right Qplus 0 (map f l) == 0 -> forall x, In x l -> f x == 0.
Proof.
  induction l as [|y l IH]; intros Hpos Hsum x Hx; [destruct Hx|]. cbn [map fold_right] in Hsum.
  assert (Hy : 0 <= f y) by (apply Hpos; left; reflexivity).
  assert (Hl : 0 <= fold_right Qplus 0 (map f l)).
  { clear IH Hsum Hx. induction l as [|z l IHl]; cbn [map fold_right]; [apply Qle_refl|].
    assert (0 <= f z) by (apply Hpos; right; left; reflexivity).
    assert (0 <= fold_right Qplus 0 (map f l)) by (apply IHl; intros; apply Hpos; destruct H0; [left | right; right]; auto).
    lra. }
  destruct Hx as [<-|Hx]; [lra|]. apply IH; auto; [intros; apply Hpos; right; auto | lra].
Qed.

Lemma face_optimality M K p v ws :
  check_face M K p v = true ->
  Forall (fun wj => 0 <= fst wj /\ (snd wj < length K)%nat) ws -> wsum ws == 1 ->
  dot v (combination K ws) == dot v p ->
  dot (matvec M p) p <= dot (matvec M p) (combination K ws).
Proof.
  unfold check_face. intros Hc Hws Hsum Hface. rewrite forallb_forall in Hc.
  set (c := dot v p) in *. set (w := matvec M p) in *. set (s := dot w p) in *.
  assert (Hu : forall j, (j < length K)%nat -> dot v (nth j K []) <= c /\
                (dot v (nth j K []) == c -> s <= dot w (nth j K []))).
  { intros j Hj. specialize (Hc _ (nth_In _ [] Hj)). apply andb_true_iff in Hc as [H1 H2].
    apply Qle_bool_iff in H1. split; [exact H1|]. intro E. apply Qeq_bool_iff in E. unfold vec in *.
    rewrite E in H2. apply Qle_bool_iff, H2. }
  (* the weights off the face are zero: sum_j w_j (c - <v, u_j>) = c - <v, x> = 0 *)
  assert (Hgap : fold_right Qplus 0 (map (fun wj => fst wj * (c - dot v (nth (snd wj) K []))) ws) == 0).
  { assert (E : fold_right Qplus 0 (map (fun wj => fst wj * (c - dot v (nth (snd wj) K []))) ws)
                == wsum ws * c - dot v (combination K ws)).
    { rewrite dot_combination. unfold wsum. clear Hws Hsum Hface Hc Hu. induction ws as [|[wt j] ws IH];
        cbn [map fold_right fst snd]; [ring | rewrite IH; ring]. }
    rewrite E, Hsum, Hface. ring. }
  assert (Hterm : forall wj, In wj ws -> s * fst wj <= fst wj * dot w (nth (snd wj) K [])).
  { intros [wt j] Hin. rewrite Forall_forall in Hws. destruct (Hws _ Hin) as [Hw Hj]. cbn [fst snd] in *.
    destruct (Hu j Hj) as [Hle Hopt].
    assert (Hnn : forall wj, In wj ws -> 0 <= fst wj * (c - dot v (nth (snd wj) K []))).
    { intros [wt' j'] Hin'. destruct (Hws _ Hin') as [Hw' Hj']. cbn [fst snd] in *.
      destruct (Hu j' Hj') as [Hle' _]. apply Qmult_le_0_compat; lra. }
    pose proof (sum_nonneg_zero (fun wj => fst wj * (c - dot v (nth (snd wj) K []))) ws Hnn Hgap (wt, j) Hin) as Hz.
    cbn beta iota in Hz. cbn [fst snd] in Hz.
    destruct (Qle_lt_or_eq _ _ Hw) as [Hpos|Hzero].
    - assert (Hon : dot v (nth j K []) == c).
      { assert (Hd : c - dot v (nth j K []) == 0).
        { apply (Qmult_integral_l wt); [intro E; rewrite E in Hpos; discriminate | exact Hz]. }
        lra. }
      specialize (Hopt Hon). rewrite (Qmult_comm s). apply Qmult_le_l; [exact Hpos | exact Hopt].
    - rewrite <- Hzero. lra. }
  rewrite dot_combination.
  assert (Hsum' : fold_right Qplus 0 (map (fun wj => s * fst wj) ws) == s * wsum ws).
  { unfold wsum. clear Hws Hsum Hface Hc Hu Hgap Hterm. induction ws as [|[wt j] ws IH];
      cbn [map fold_right fst snd]; [ring | rewrite IH; ring]. }
  apply Qle_trans with (fold_right Qplus 0 (map (fun wj => s * fst wj) ws)).
  - rewrite Hsum', Hsum. lra.
  - assert (G : forall l, (forall wj, In wj l -> s * fst wj <= fst wj * dot w (nth (snd wj) K [])) ->
              fold_right Qplus 0 (map (fun wj => s * fst wj) l) <=
              fold_right Qplus 0 (map (fun wj => fst wj * dot w (nth (snd wj) K [])) l)).
    { induction l as [|wj l IH]; intro H; cbn [map fold_right]; [apply Qle_refl|].
      apply Qplus_le_compat; [apply H; left; reflexivity | apply IH; intros; apply H; right; assumption]. }
    apply G, Hterm.
Qed.

Lemma vertex_limit_correct fates limits i : (i < length fates)%nat -> is_vertex_limit fates limits i = true ->
  exists j, (j < length fates)%nat /\ is_leader_fate (nth j fates (Leader 0)) /\ veq (nth i limits []) (nth j limits []).
Proof.
  intros Hi H. unfold is_vertex_limit in H. apply existsb_exists in H as (j & Hj & Hb).
  apply andb_true_iff in Hb as [Hl Hv]. apply in_seq in Hj.
  exists j. split; [lia|]. split; [apply leader_b_fate, Hl | apply veqb_correct, Hv].
Qed.

Theorem T4_sound M fates limits faces : symmetric_psd M -> check_T4 M fates limits faces = true ->
  T4_statement M fates limits.
Proof.
  intros [Hsym Hpsd] H i Hi Hnv. unfold check_T4 in H. rewrite forallb_forall in H.
  specialize (H i (proj2 (in_seq _ _ _) (conj (Nat.le_0_l i) Hi))). apply orb_true_iff in H as [Hv|Hf].
  { destruct (vertex_limit_correct _ _ _ Hi Hv) as (j & Hj & Hl & E). exfalso. exact (Hnv j Hj Hl E). }
  set (K := leader_limits fates limits (length fates)) in *. set (p := nth i limits []) in *.
  set (v := nth i faces []) in *.
  exists v. split.
  - intros y Hy. apply (in_hull_bound v K y (dot v p) false Hy). intros j Hj.
    unfold check_face in Hf. rewrite forallb_forall in Hf. specialize (Hf _ (nth_In _ [] Hj)).
    apply andb_true_iff in Hf as [Hf _]. apply Qle_bool_iff, Hf.
  - intros x (ws & Hws & Hsum & Hx) Hon.
    assert (Hopt : dot (matvec M p) p <= dot (matvec M p) x).
    { rewrite (dot_veq_r _ _ _ Hx). apply (face_optimality M K p v ws Hf Hws Hsum).
      rewrite <- (dot_veq_r _ _ _ Hx). exact Hon. }
    (* <A x, x> = <A p, p> + 2 <A p, x - p> + <A (x - p), x - p> *)
    set (h := vsub x p).
    assert (Ex : veq x (vadd p h)) by (intro a; unfold h; rewrite coord_vadd, coord_vsub; ring).
    change (dot (matvec M x) x) with (bil M x x). change (dot (matvec M p) p) with (bil M p p).
    rewrite Ex, !bil_vadd_l, !bil_vadd_r.
    assert (Hph : 0 <= bil M p h) by (unfold h, vsub; rewrite bil_vadd_r, bil_vscale_r; unfold bil; lra).
    assert (Hhp : bil M h p == bil M p h) by (unfold bil; apply Hsym).
    assert (Hhh : 0 <= bil M h h) by apply Hpsd.
    lra.
Qed.
