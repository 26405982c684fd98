(** * A fast replay of the layers: integers over one denominator, in machine-word big integers.

    The checkers of Checker.v and Paths.v compute the layers with the rationals of Statement.v,
    whose every operation reduces its result by a gcd on binary numbers: at layer 200 the numbers
    have hundreds of digits and a layer takes seconds. Here layer k is N / D, integer numerators
    over one positive denominator (BigZ, 63-bit limbs), stepped with no gcd; its attention sets
    are read off integer scores. The exact rationals of a layer are formed only at the layers
    where a fate or the layer K is checked. [fast_certificate_sound] and [fast_paths_sound]:
    what the fast checker accepts, the checkers of Checker.v and Paths.v accept. *)

From Coq Require Import QArith Qreduction ZArith List Lia Lqa Bool.
From Bignums Require Import BigZ.
From HardmaxVerify Require Import Statement Algebra Dynamics Checker ExpPoly Paths.
Import ListNotations.
Open Scope Q_scope.

Definition zvec := list bigZ.
Definition zq (w : bigZ) : Q := inject_Z (BigZ.to_Z w).

(** x is k z, entry for entry, with as many entries. *)
Definition rel (k : Q) (x : vec) (z : zvec) : Prop := Forall2 (fun q w => q == k * zq w) x z.

Fixpoint zadd (x y : zvec) : zvec :=
  match x, y with
  | a :: x', b :: y' => BigZ.add a b :: zadd x' y'
  | [], _ => y
  | _, [] => x
  end.
Definition zscale (c : bigZ) (x : zvec) : zvec := map (BigZ.mul c) x.
Fixpoint zdot (x y : zvec) : bigZ :=
  match x, y with
  | a :: x', b :: y' => BigZ.add (BigZ.mul a b) (zdot x' y')
  | _, _ => BigZ.zero
  end.
Definition zmatvec (M : list zvec) (x : zvec) : zvec := map (fun row => zdot row x) M.
Definition zsum (xs : list zvec) : zvec := fold_right zadd [] xs.

Lemma zq_add a b : zq (BigZ.add a b) == zq a + zq b.
Proof. unfold zq. rewrite BigZ.spec_add, inject_Z_plus. reflexivity. Qed.
Lemma zq_mul a b : zq (BigZ.mul a b) == zq a * zq b.
Proof. unfold zq. rewrite BigZ.spec_mul, inject_Z_mult. reflexivity. Qed.
Lemma zq_zero : zq BigZ.zero == 0.
Proof. unfold zq. rewrite BigZ.spec_0. reflexivity. Qed.

Lemma rel_add k x y z w : rel k x z -> rel k y w -> rel k (vadd x y) (zadd z w).
Proof.
  intro H. revert y w. induction H as [|a b x z Hab H IH]; intros y w Hy; [exact Hy|].
  destruct Hy as [|c d y w Hcd Hy]; [constructor; assumption|].
  constructor; [|apply IH, Hy]. rewrite Qred_correct, zq_add, Hab, Hcd. ring.
Qed.

Lemma rel_rescale k k' c x z : rel k x z -> k == k' * zq c -> rel k' x (zscale c z).
Proof.
  intros H E. induction H; constructor; [|assumption]. rewrite zq_mul, H, E. ring.
Qed.

Lemma rel_scale k k' q c x z : rel k x z -> q * k == k' * zq c -> rel k' (vscale q x) (zscale c z).
Proof.
  intros H E. induction H; constructor; [|assumption]. rewrite Qred_correct, zq_mul, H.
  transitivity ((q * k) * zq y); [ring|]. rewrite E. ring.
Qed.

Lemma rel_scale1 k k' q x z : rel k x z -> q * k == k' -> rel k' (vscale q x) z.
Proof.
  intros H E. induction H; constructor; [|assumption]. rewrite Qred_correct, H, <- E. ring.
Qed.

Lemma rel_dot k k' x y z w : rel k x z -> rel k' y w -> dot x y == k * k' * zq (zdot z w).
Proof.
  intro H. revert y w. induction H as [|a b x z Hab H IH]; intros y w Hy.
  - cbn. rewrite zq_zero. ring.
  - destruct Hy as [|c d y w Hcd Hy]; cbn [dot zdot]; [rewrite zq_zero; ring|].
    rewrite Qred_correct, zq_add, zq_mul, Hab, Hcd, (IH _ _ Hy). ring.
Qed.

Lemma rel_matvec kA k M MZ x z : Forall2 (rel kA) M MZ -> rel k x z -> rel (kA * k) (matvec M x) (zmatvec MZ z).
Proof.
  intros HM Hx. induction HM; constructor; [|assumption]. apply (rel_dot _ _ _ _ _ _ H Hx).
Qed.

Lemma rel_sum k xs zs : Forall2 (rel k) xs zs -> rel k (vsum xs) (zsum zs).
Proof. intro H. induction H; [constructor | apply rel_add; assumption]. Qed.

Lemma Forall2_nth_default {X Y} (R : X -> Y -> Prop) dx dy l m i :
  R dx dy -> Forall2 R l m -> R (nth i l dx) (nth i m dy).
Proof.
  intros H0 H. revert i. induction H as [|x y l m Hxy H IH]; intro i; [destruct i; exact H0|].
  destruct i; [exact Hxy | apply IH].
Qed.

Lemma Forall2_length {X Y} (R : X -> Y -> Prop) l m : Forall2 R l m -> length l = length m.
Proof. intro H. induction H; cbn; congruence. Qed.

Lemma rel_nth k Z N i : Forall2 (rel k) Z N -> rel k (nth i Z []) (nth i N []).
Proof. apply Forall2_nth_default. constructor. Qed.

Lemma Forall2_map_seq {X Y} (R : X -> Y -> Prop) f g n :
  (forall i, (i < n)%nat -> R (f i) (g i)) -> Forall2 R (map f (seq 0 n)) (map g (seq 0 n)).
Proof.
  intro H. assert (G : forall m, (forall i, (m <= i < m + n)%nat -> R (f i) (g i)) ->
                               Forall2 R (map f (seq m n)) (map g (seq m n))).
  { clear H. induction n as [|n IH]; intros m Hm; [constructor|]. cbn [seq map]. constructor; [apply Hm; lia|].
    apply IH. intros i Hi. apply Hm. lia. }
  apply G. intros i Hi. apply H. lia.
Qed.

(** ** Attention from integer scores *)
Definition zmax_list (s : list bigZ) : bigZ := fold_right BigZ.max (hd BigZ.zero s) s.
Definition zattention (AZ : list zvec) (N : list zvec) (i : nat) : list nat :=
  let u := zmatvec AZ (nth i N []) in
  let scores := map (zdot u) N in
  let top := zmax_list scores in
  map fst (filter (fun js => BigZ.eqb (snd js) top) (combine (seq 0 (length N)) scores)).

Section Scaled.
Variable k : Q.
Hypothesis Hk : 0 < k.
Definition scaled (q : Q) (s : bigZ) : Prop := q == k * zq s.

Lemma scaled_le q s q' s' : scaled q s -> scaled q' s' -> (q <= q' <-> (BigZ.to_Z s <= BigZ.to_Z s')%Z).
Proof.
  unfold scaled. intros E E'. rewrite E, E', Qmult_le_l by exact Hk. unfold zq. rewrite <- Zle_Qle. reflexivity.
Qed.

Lemma scaled_eqb q s q' s' : scaled q s -> scaled q' s' -> Qeq_bool q q' = BigZ.eqb s s'.
Proof.
  intros E E'. rewrite BigZ.spec_eqb. apply eq_true_iff_eq. rewrite Qeq_bool_iff, Z.eqb_eq.
  split; intro H.
  - apply Z.le_antisymm; [apply (scaled_le _ _ _ _ E E') | apply (scaled_le _ _ _ _ E' E)]; rewrite H; apply Qle_refl.
  - apply Qle_antisym; [apply (scaled_le _ _ _ _ E E') | apply (scaled_le _ _ _ _ E' E)]; rewrite H; apply Z.le_refl.
Qed.

Lemma scaled_max qs zs d dz : scaled d dz -> Forall2 scaled qs zs ->
  scaled (fold_right qmax d qs) (fold_right BigZ.max dz zs).
Proof.
  intros H0 H. induction H as [|q s qs zs Hqs H IH]; [exact H0|]. cbn [fold_right].
  unfold qmax. change (scaled (if Qle_bool q (fold_right qmax d qs) then fold_right qmax d qs else q)
                              (BigZ.max s (fold_right BigZ.max dz zs))).
  unfold scaled at 1. unfold zq at 1. rewrite BigZ.spec_max. fold (zq s) (zq (fold_right BigZ.max dz zs)).
  destruct (Qle_bool q (fold_right qmax d qs)) eqn:E.
  - apply Qle_bool_iff in E. apply (scaled_le _ _ _ _ Hqs IH) in E. rewrite Z.max_r by exact E. exact IH.
  - assert (E' : ~ q <= fold_right qmax d qs) by (intro F; apply Qle_bool_iff in F; congruence).
    rewrite (scaled_le _ _ _ _ Hqs IH) in E'. rewrite Z.max_l by lia. exact Hqs.
Qed.

Lemma scaled_max_list qs zs : Forall2 scaled qs zs -> scaled (max_list qs) (zmax_list zs).
Proof.
  intro H. apply scaled_max; [|exact H]. destruct H; cbn [hd]; [unfold scaled; rewrite zq_zero; ring | exact H].
Qed.

Lemma scaled_indices T zT m qs zs : scaled T zT -> Forall2 scaled qs zs ->
  map fst (filter (fun js => Qeq_bool (snd js) T) (combine (seq m (length qs)) qs)) =
  map fst (filter (fun js => BigZ.eqb (snd js) zT) (combine (seq m (length zs)) zs)).
Proof.
  intros HT H. revert m. induction H as [|q s qs zs Hqs H IH]; intro m; [reflexivity|].
  cbn [length seq combine filter snd]. rewrite (scaled_eqb _ _ _ _ Hqs HT).
  destruct (BigZ.eqb s zT); cbn [map fst]; rewrite IH; reflexivity.
Qed.
End Scaled.

Lemma zattention_correct kA kD M AZ Z N i : 0 < kA -> 0 < kD ->
  Forall2 (rel kA) M AZ -> Forall2 (rel kD) Z N -> attention M Z i = zattention AZ N i.
Proof.
  intros HA HD HM HZ. unfold attention, zattention. cbv zeta.
  assert (Hk : 0 < kA * kD * kD) by (apply Qmult_lt_0_compat; [apply Qmult_lt_0_compat|]; assumption).
  set (u := matvec M (nth i Z [])). set (uz := zmatvec AZ (nth i N [])).
  assert (Hu : rel (kA * kD) u uz) by apply (rel_matvec _ _ _ _ _ _ HM (rel_nth _ _ _ i HZ)).
  assert (Hs : Forall2 (scaled (kA * kD * kD)) (map (dot u) Z) (map (zdot uz) N)).
  { clearbody u uz. clear - Hu HZ. induction HZ; constructor; [|exact IHHZ]. unfold scaled. apply (rel_dot _ _ _ _ _ _ Hu H). }
  rewrite <- (map_length (dot u) Z), <- (map_length (zdot uz) N).
  apply (scaled_indices _ Hk); [apply (scaled_max_list _ Hk), Hs | exact Hs].
Qed.

Lemma zattention_sets kA kD c AZ Z N : 0 < kA -> 0 < kD -> Forall2 (rel kA) (A c) AZ -> Forall2 (rel kD) Z N ->
  attention_sets c Z = map (zattention AZ N) (seq 0 (length N)).
Proof.
  intros HA HD HM HZ. unfold attention_sets. rewrite <- (Forall2_length _ _ _ HZ). apply map_ext. intro i.
  apply (zattention_correct kA kD); assumption.
Qed.

(** ** One layer over a common denominator

    With alpha = p / q and L the lcm of the attention sets' sizes, z_i' = (z_i + alpha m_i) / (1 + alpha)
    is N_i' / D' with N_i' = q L N_i + p (L / |C_i|) sum_(j in C_i) N_j and D' = (p + q) L D. *)
Definition lcm_sizes (sets : list (list nat)) : Z := fold_right (fun C L => Z.lcm (Z.of_nat (length C)) L) 1%Z sets.

Definition zstep (p q : Z) (N : list zvec) (sets : list (list nat)) : list zvec :=
  let L := lcm_sizes sets in
  map (fun i => let C := nth i sets [] in
                zadd (zscale (BigZ.of_Z (q * L)) (nth i N []))
                     (zscale (BigZ.of_Z (p * (L / Z.of_nat (length C)))) (zsum (map (fun j => nth j N []) C))))
      (seq 0 (length N)).

Lemma inject_Z_nonzero x : x <> 0%Z -> ~ inject_Z x == 0.
Proof. intros H G. unfold Qeq in G. cbn in G. lia. Qed.

Lemma zq_of_Z x : zq (BigZ.of_Z x) = inject_Z x.
Proof. unfold zq. rewrite BigZ.spec_of_Z. reflexivity. Qed.

Lemma lcm_sizes_divide sets C : In C sets -> Z.divide (Z.of_nat (length C)) (lcm_sizes sets).
Proof.
  induction sets as [|C' sets IH]; intros H; [destruct H|]. cbn [lcm_sizes fold_right].
  destruct H as [E|H]; [subst C'; apply Z.divide_lcm_l|].
  eapply Z.divide_trans; [apply IH, H | apply Z.divide_lcm_r].
Qed.

Lemma lcm_sizes_pos sets : (forall C, In C sets -> C <> []) -> (0 < lcm_sizes sets)%Z.
Proof.
  induction sets as [|C sets IH]; intro H; cbn [lcm_sizes fold_right]; [lia|].
  fold (lcm_sizes sets). assert (HC : C <> []) by (apply H; left; reflexivity).
  assert (Hl : (0 < Z.of_nat (length C))%Z) by (destruct C; [congruence | cbn [length]; lia]).
  assert (Hs : (0 < lcm_sizes sets)%Z) by (apply IH; intros C' HC'; apply H; right; exact HC').
  pose proof (Z.lcm_nonneg (Z.of_nat (length C)) (lcm_sizes sets)) as G.
  destruct (Z.eq_dec (Z.lcm (Z.of_nat (length C)) (lcm_sizes sets)) 0) as [E|E]; [|lia].
  apply Z.lcm_eq_0 in E. lia.
Qed.

Lemma Forall2_map_same {X Y T} (R : X -> Y -> Prop) (f : T -> X) (g : T -> Y) l :
  (forall x, In x l -> R (f x) (g x)) -> Forall2 R (map f l) (map g l).
Proof. intro H. induction l as [|x l IH]; constructor; [apply H; left; reflexivity | apply IH; intros y Hy; apply H; right; exact Hy]. Qed.

Section Step.
Variables (c : config) (D : bigZ) (Z : list vec) (N : list zvec) (sets : list (list nat)).
Hypothesis Ha : 0 < alpha c.
Hypothesis HD : 0 < zq D.
Hypothesis HZ : Forall2 (rel (/ zq D)) Z N.
Hypothesis Hlen : length sets = length Z.
Hypothesis Hne : forall C, In C sets -> C <> [].
Let p := Qnum (alpha c).
Let q := Zpos (Qden (alpha c)).
Let L := lcm_sizes sets.

Definition next_den : bigZ := BigZ.mul (BigZ.of_Z ((p + q) * L)) D.

Lemma p_pos : (0 < p)%Z.
Proof. unfold p. destruct (alpha c) as [x y]. unfold Qlt in Ha. cbn in *. lia. Qed.

Lemma alpha_pq : alpha c == inject_Z p / inject_Z q.
Proof. unfold p, q. destruct (alpha c) as [x y]. apply Qmake_Qdiv. Qed.

Lemma zstep_rel : Forall2 (rel (/ zq next_den)) (step c Z sets) (zstep p q N sets).
Proof.
  unfold step, zstep. fold L. rewrite <- (Forall2_length _ _ _ HZ).
  apply Forall2_map_seq. intros i Hi.
  set (C := nth i sets []).
  assert (HC : In C sets) by (apply nth_In; lia).
  assert (HCne := Hne C HC).
  assert (HL : (0 < L)%Z) by (apply lcm_sizes_pos, Hne).
  set (len := Z.of_nat (length C)).
  assert (Hl : (0 < len)%Z) by (unfold len; destruct C; [congruence | cbn [length]; lia]).
  destruct (lcm_sizes_divide sets C HC) as (f & Hf). fold L len in Hf.
  assert (Hdiv : (L / len = f)%Z) by (rewrite Hf; apply Z.div_mul; lia).
  rewrite Hdiv.
  assert (Hfpos : (0 < f)%Z) by nia.
  set (kD := / zq D). set (k0 := kD * / inject_Z (q * L)).
  assert (Hq : (0 < q)%Z) by (unfold q; lia).
  assert (Hp := p_pos).
  assert (Hsum : rel kD (vsum (map (fun j => nth j Z []) C)) (zsum (map (fun j => nth j N []) C))).
  { apply rel_sum, Forall2_map_same. intros j _. apply rel_nth, HZ. }
  assert (Hlenq : ~ inject_Z len == 0) by (apply inject_Z_nonzero; lia).
  assert (Hqq : ~ inject_Z q == 0) by (apply inject_Z_nonzero; lia).
  assert (HLq : ~ inject_Z L == 0) by (apply inject_Z_nonzero; lia).
  assert (Hfq : ~ inject_Z f == 0) by (apply inject_Z_nonzero; lia).
  assert (HDq : ~ zq D == 0) by (intro G; rewrite G in HD; discriminate).
  assert (Hpq : ~ inject_Z (p + q) == 0) by (apply inject_Z_nonzero; lia).
  assert (Hz : rel k0 (nth i Z []) (zscale (BigZ.of_Z (q * L)) (nth i N []))).
  { apply (rel_rescale kD); [apply rel_nth, HZ|]. rewrite zq_of_Z. unfold k0. rewrite inject_Z_mult.
    field. auto. }
  assert (Hn : (1 # Pos.of_nat (length (map (fun j => nth j Z []) C))) == / inject_Z len).
  { rewrite map_length. unfold len. destruct (length C) as [|m] eqn:E; [lia|].
    change (Z.of_nat (S m)) with (Zpos (Pos.of_succ_nat m)). rewrite <- Pos.of_nat_succ. reflexivity. }
  assert (Hm : rel k0 (vscale (alpha c) (mean (map (fun j => nth j Z []) C)))
                      (zscale (BigZ.of_Z (p * f)) (zsum (map (fun j => nth j N []) C)))).
  { unfold mean. apply (rel_scale ((1 # Pos.of_nat (length (map (fun j => nth j Z []) C))) * kD));
      [apply (rel_scale1 kD); [exact Hsum | reflexivity]|].
    rewrite zq_of_Z, Hn, alpha_pq. unfold k0, kD. rewrite Hf, !inject_Z_mult. field. auto. }
  unfold update. apply (rel_scale1 k0); [apply rel_add; assumption|].
  unfold next_den. rewrite zq_mul, zq_of_Z. unfold k0, kD. rewrite alpha_pq, !inject_Z_mult, inject_Z_plus.
  rewrite inject_Z_plus in Hpq. field. repeat split; auto.
Qed.
End Step.

(** ** The exact rationals of a layer, formed only where a fate is checked *)
Definition canonical (Z : list vec) : Prop := Forall (Forall (fun x => Qred x = x)) Z.

Lemma Qred_idem x : Qred (Qred x) = Qred x.
Proof. apply Qred_complete, Qred_correct. Qed.

Lemma vscale_canonical q x : Forall (fun y => Qred y = y) (vscale q x).
Proof. unfold vscale. apply Forall_forall. intros y Hy. apply in_map_iff in Hy as (z & <- & _). apply Qred_idem. Qed.

Lemma step_canonical c Z sets : canonical (step c Z sets).
Proof.
  unfold canonical, step. apply Forall_forall. intros x Hx. apply in_map_iff in Hx as (i & <- & _).
  unfold update. apply vscale_canonical.
Qed.

Definition canon (D : bigZ) (N : list zvec) : list vec := map (map (fun w => Qred (/ zq D * zq w))) N.

Lemma canon_eq D Z N : canonical Z -> Forall2 (rel (/ zq D)) Z N -> canon D N = Z.
Proof.
  intros HC H. unfold canon. induction H as [|x z Z N Hxz H IH]; [reflexivity|].
  inversion HC as [|? ? Hx HZ]; subst. cbn [map]. rewrite (IH HZ). f_equal.
  clear - Hxz Hx. induction Hxz as [|q w x z E Hxz IH]; [reflexivity|].
  inversion Hx as [|? ? Hq Hx']; subst. cbn [map]. rewrite (IH Hx'). f_equal.
  rewrite <- Hq. apply Qred_complete. symmetry. exact E.
Qed.

(** ** The layers where no fate is checked *)
Definition quiet_fate (k : nat) (f : fate) : bool :=
  match f with
  | Path _ _ => true
  | _ => negb (Nat.eqb (fate_layer f) k || Nat.eqb (fate_layer f) (S k))
  end.
Definition quiet (fates : list fate) (K k : nat) : bool := negb (Nat.eqb k K) && forallb (quiet_fate k) fates.

Lemma check_tokens_quiet c fates k Z fs : forallb (quiet_fate k) fs = true ->
  forall i sets zs ps, check_tokens c fates k Z i fs sets zs ps = true.
Proof.
  induction fs as [|f fs IH]; intros H i sets zs ps; [reflexivity|].
  cbn [forallb] in H. apply andb_true_iff in H as [Hf H]. cbn [check_tokens]. rewrite (IH H), andb_true_r.
  unfold check_token. destruct f as [ki|ki G|ki F|ki F]; cbn [quiet_fate fate_layer] in Hf;
    try (apply negb_true_iff, orb_false_iff in Hf as [H1 H2]); cbn [establishes first_at];
    try rewrite H1; try rewrite H2; reflexivity.
Qed.

Lemma check_layer_quiet c fates limits K ZK k Z sets : quiet fates K k = true ->
  check_layer c fates limits K ZK k Z sets = true.
Proof.
  unfold quiet. rewrite andb_true_iff, negb_true_iff. intros [HK Hq]. unfold check_layer.
  rewrite HK, (check_tokens_quiet _ _ _ _ _ Hq). reflexivity.
Qed.

(** ** The fast replay *)
Record zlayer := { zden : bigZ; znums : list zvec }.

Definition zsets (AZ : list zvec) (Y : zlayer) : list (list nat) :=
  map (zattention AZ (znums Y)) (seq 0 (length (znums Y))).
Definition znext (c : config) (Y : zlayer) (sets : list (list nat)) : zlayer :=
  {| zden := next_den c (zden Y) sets; znums := zstep (Qnum (alpha c)) (Zpos (Qden (alpha c))) (znums Y) sets |}.

(** [run] of Checker.v on the fast layers: the checks of a layer on its exact rationals, where
    a fate or the layer K is checked. *)
Fixpoint frun (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec) (AZ : list zvec)
         (k fuel : nat) (Y : zlayer) : bool :=
  let sets := zsets AZ Y in
  if (if quiet fates K k then true else check_layer c fates limits K ZK k (canon (zden Y) (znums Y)) sets) then
    match fuel with
    | O => true
    | S fuel' => frun c fates limits K ZK AZ (S k) fuel' (znext c Y sets)
    end
  else false.

Fixpoint zlayers (c : config) (AZ : list zvec) (Y0 : zlayer) (k : nat) : zlayer :=
  match k with
  | O => Y0
  | S k' => let Y := zlayers c AZ Y0 k' in znext c Y (zsets AZ Y)
  end.

Section Replay.
Variables (c : config) (AZ : list zvec) (kA : Q).
Hypothesis Ha : 0 < alpha c.
Hypothesis HkA : 0 < kA.
Hypothesis HA : Forall2 (rel kA) (A c) AZ.

Definition represents (Y : zlayer) (Z : list vec) : Prop :=
  0 < zq (zden Y) /\ Forall2 (rel (/ zq (zden Y))) Z (znums Y).

Lemma zsets_correct Y Z : represents Y Z -> zsets AZ Y = attention_sets c Z.
Proof.
  intros [HD HZ]. unfold zsets. symmetry. apply (zattention_sets kA (/ zq (zden Y))); try assumption.
  apply Qinv_lt_0_compat, HD.
Qed.

Lemma znext_represents Y Z : represents Y Z -> represents (znext c Y (zsets AZ Y)) (layer c Z).
Proof.
  intro H. rewrite (zsets_correct Y Z H). destruct H as [HD HZ].
  assert (Hlen : length (attention_sets c Z) = length Z) by (unfold attention_sets; rewrite map_length, seq_length; reflexivity).
  assert (Hne : forall C, In C (attention_sets c Z) -> C <> []).
  { intros C HC. unfold attention_sets in HC. apply in_map_iff in HC as (i & <- & Hi). apply in_seq in Hi.
    apply attention_not_nil. lia. }
  split.
  - cbn [znext zden]. unfold next_den. rewrite zq_mul, zq_of_Z.
    apply Qmult_lt_0_compat; [|exact HD]. change 0 with (inject_Z 0). rewrite <- Zlt_Qlt. apply Z.mul_pos_pos; [|apply lcm_sizes_pos, Hne].
    assert (Hp : (0 < Qnum (alpha c))%Z) by (destruct (alpha c) as [x y]; unfold Qlt in Ha; cbn in *; lia). lia.
  - apply (zstep_rel c (zden Y) Z (znums Y) (attention_sets c Z)); assumption.
Qed.

Lemma zlayers_represent Y0 : represents Y0 (tokens c) -> forall k, represents (zlayers c AZ Y0 k) (layers c k).
Proof. intros H0 k. induction k as [|k IH]; [exact H0|]. cbn [zlayers layers]. apply znext_represents, IH. Qed.

Lemma frun_sound fates limits K ZK : forall fuel k Y Z, represents Y Z -> canonical Z ->
  frun c fates limits K ZK AZ k fuel Y = true -> run c fates limits K ZK k fuel Z = true.
Proof.
  induction fuel as [|fuel IH]; intros k Y Z HY HC H; cbn [frun run] in *;
    rewrite (zsets_correct Y Z HY) in H;
    (assert (Hl : check_layer c fates limits K ZK k Z (attention_sets c Z) = true);
     [destruct (quiet fates K k) eqn:Q; [apply check_layer_quiet, Q|];
      rewrite (canon_eq _ _ _ HC (proj2 HY)) in H; destruct (check_layer _ _ _ _ _ _ Z _); [reflexivity | discriminate]|]);
    rewrite Hl; [reflexivity|].
  destruct (if quiet fates K k then true else _) in H; [|discriminate].
  apply (IH (S k) (znext c Y (attention_sets c Z))); [| apply step_canonical | exact H].
  change (step c Z (attention_sets c Z)) with (layer c Z).
  rewrite <- (zsets_correct Y Z HY). apply znext_represents, HY.
Qed.
End Replay.

(** ** Layer 0 and A over common denominators, checked entry for entry *)
Definition den_lcm (xs : list Q) : Z := fold_right (fun x L => Z.lcm (Zpos (Qden x)) L) 1%Z xs.
Definition scale_to (L : Z) (x : Q) : bigZ := BigZ.of_Z (Qnum x * (L / Zpos (Qden x))).
Definition scaled_rows (X : list vec) : Z * list zvec :=
  let L := den_lcm (concat X) in (L, map (map (scale_to L)) X).

Fixpoint relb (k : Q) (x : vec) (z : zvec) : bool :=
  match x, z with
  | [], [] => true
  | q :: x', w :: z' => Qeq_bool q (k * zq w) && relb k x' z'
  | _, _ => false
  end.
Fixpoint rowsb (k : Q) (X : list vec) (N : list zvec) : bool :=
  match X, N with
  | [], [] => true
  | x :: X', z :: N' => relb k x z && rowsb k X' N'
  | _, _ => false
  end.

Lemma relb_correct k x z : relb k x z = true -> rel k x z.
Proof.
  revert z. induction x as [|q x IH]; intros [|w z] H; try discriminate; constructor.
  cbn [relb] in H. apply andb_true_iff in H as [H1 H2]. apply Qeq_bool_iff, H1.
  cbn [relb] in H. apply andb_true_iff in H as [H1 H2]. apply IH, H2.
Qed.

Lemma rowsb_correct k X N : rowsb k X N = true -> Forall2 (rel k) X N.
Proof.
  revert N. induction X as [|x X IH]; intros [|z N] H; try discriminate; constructor;
  cbn [rowsb] in H; apply andb_true_iff in H as [H1 H2]; [apply relb_correct, H1 | apply IH, H2].
Qed.

Definition qcanonical (x : Q) : bool := Z.eqb (Qnum (Qred x)) (Qnum x) && Pos.eqb (Qden (Qred x)) (Qden x).
Lemma qcanonical_correct x : qcanonical x = true -> Qred x = x.
Proof.
  unfold qcanonical. rewrite andb_true_iff, Z.eqb_eq, Pos.eqb_eq. destruct (Qred x), x. cbn. intros [-> ->]. reflexivity.
Qed.

Definition setup_ok (c : config) : bool :=
  let (LA, AZ) := scaled_rows (A c) in
  let (L0, N0) := scaled_rows (tokens c) in
  Z.ltb 0 LA && Z.ltb 0 L0 && rowsb (/ inject_Z LA) (A c) AZ && rowsb (/ inject_Z L0) (tokens c) N0 &&
  forallb (forallb qcanonical) (tokens c).
Definition zA (c : config) : list zvec := snd (scaled_rows (A c)).
Definition zlayer0 (c : config) : zlayer :=
  {| zden := BigZ.of_Z (fst (scaled_rows (tokens c))); znums := snd (scaled_rows (tokens c)) |}.

Lemma setup_sound c : setup_ok c = true ->
  (exists kA, 0 < kA /\ Forall2 (rel kA) (A c) (zA c)) /\ represents (zlayer0 c) (tokens c) /\ canonical (tokens c).
Proof.
  unfold setup_ok, zA, zlayer0. destruct (scaled_rows (A c)) as [LA AZ], (scaled_rows (tokens c)) as [L0 N0].
  cbn [fst snd]. rewrite !andb_true_iff, !Z.ltb_lt. intros ((((HLA & HL0) & HA) & HZ) & HC).
  split; [|split].
  - exists (/ inject_Z LA). split; [apply Qinv_lt_0_compat; change 0 with (inject_Z 0); rewrite <- Zlt_Qlt; exact HLA|].
    apply rowsb_correct, HA.
  - unfold represents. cbn [zden znums]. rewrite zq_of_Z. split; [change 0 with (inject_Z 0); rewrite <- Zlt_Qlt; exact HL0|].
    apply rowsb_correct, HZ.
  - unfold canonical. apply Forall_forall. intros x Hx. apply Forall_forall. intros q Hq.
    rewrite forallb_forall in HC. specialize (HC x Hx). rewrite forallb_forall in HC.
    apply qcanonical_correct, HC, Hq.
Qed.

(** ** The fast checkers and their soundness *)
Definition fast_core (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec) : bool :=
  negb (Qle_bool (alpha c) 0) && Nat.eqb (length fates) (ntokens c) && Nat.eqb (length limits) (ntokens c) &&
  existsb leader_fate fates && setup_ok c && frun c fates limits K ZK (zA c) 0 (last_layer fates K) (zlayer0 c).

Lemma alpha_pos c : negb (Qle_bool (alpha c) 0) = true -> 0 < alpha c.
Proof. intro H. apply negb_true_iff in H. apply Qnot_le_lt. intro E. apply Qle_bool_iff in E. congruence. Qed.

Lemma fast_core_correct c fates limits K ZK : fast_core c fates limits K ZK = true -> check_core c fates limits K ZK = true.
Proof.
  unfold fast_core, check_core. rewrite !andb_true_iff. intros (((((H1 & H2) & H3) & H4) & H5) & H6).
  destruct (setup_sound c H5) as ((kA & HkA & HA) & H0 & HC).
  repeat split; try assumption. apply (frun_sound c (zA c) kA (alpha_pos c H1) HkA HA _ _ _ _ _ 0 _ _ H0 HC H6).
Qed.

Definition fast_check (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec) : bool :=
  fast_core c fates limits K ZK && forallb (fun f => negb (path_fate f)) fates.

Theorem fast_certificate_sound c fates limits K ZK :
  fast_check c fates limits K ZK = true -> Outcome c fates limits K ZK.
Proof.
  unfold fast_check. rewrite andb_true_iff. intros [H1 H2]. apply certificate_sound. unfold check.
  rewrite (fast_core_correct _ _ _ _ _ H1), H2. reflexivity.
Qed.

(** A closed-form segment is checked against the fast layer, its entries as unreduced fractions. *)
Definition approx (Y : zlayer) : list vec := map (map (fun w => / zq (zden Y) * zq w)) (znums Y).

Lemma forallb_eq {X} (f g : X -> bool) l : (forall x, f x = g x) -> forallb f l = forallb g l.
Proof. intro H. induction l as [|x l IH]; cbn; [reflexivity|]. rewrite H, IH. reflexivity. Qed.

Lemma Qeq_bool_proper a b b' : b == b' -> Qeq_bool a b = Qeq_bool a b'.
Proof. intro E. apply eq_true_iff_eq. rewrite !Qeq_bool_iff, E. reflexivity. Qed.
Lemma Qeq_bool_proper_l a a' b : a == a' -> Qeq_bool a b = Qeq_bool a' b.
Proof. intro E. apply eq_true_iff_eq. rewrite !Qeq_bool_iff, E. reflexivity. Qed.

Lemma veqb_proper x y y' : Forall2 Qeq y y' -> veqb x y = veqb x y'.
Proof.
  intro H. revert x. induction H as [|b b' y y' E H IH]; intro x; [reflexivity|].
  destruct x as [|a x]; cbn [veqb forallb].
  - rewrite (Qeq_bool_proper 0 b b' E). f_equal. specialize (IH []). cbn [veqb] in IH. exact IH.
  - rewrite (Qeq_bool_proper a b b' E), IH. reflexivity.
Qed.

Lemma check_segment_proper c (Z Z' : list vec) ZH sets Ts : Forall2 (Forall2 Qeq) Z Z' ->
  check_segment c Z ZH sets Ts = check_segment c Z' ZH sets Ts.
Proof.
  intro H. assert (E : @length vec Z = @length vec Z') by apply (Forall2_length _ _ _ H).
  unfold check_segment. rewrite E. f_equal. apply forallb_eq. intro j.
  unfold check_token_segment. rewrite E.
  rewrite (veqb_proper _ _ _ (Forall2_nth_default _ [] [] Z Z' j (Forall2_nil _) H)). reflexivity.
Qed.

Lemma approx_close Y Z : represents Y Z -> Forall2 (Forall2 Qeq) Z (approx Y).
Proof.
  intros [_ H]. unfold approx. induction H as [|x z Z N Hxz H IH]; constructor; [|exact IH].
  clear - Hxz. induction Hxz; constructor; [exact H | exact IHHxz].
Qed.

Definition fast_check_with_paths (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec)
           (seg : segment) : bool :=
  fast_core c fates limits K ZK &&
  check_segment c (approx (zlayers c (zA c) (zlayer0 c) (seg_layer seg))) (seg_paths seg) (seg_sets seg) (seg_thresholds seg) &&
  check_path_fates fates limits seg.

Theorem fast_paths_sound c fates limits K ZK seg :
  fast_check_with_paths c fates limits K ZK seg = true -> Outcome c fates limits K ZK.
Proof.
  unfold fast_check_with_paths. rewrite !andb_true_iff. intros ((H1 & H2) & H3).
  apply (paths_sound c fates limits K ZK seg). unfold check_with_paths.
  rewrite (fast_core_correct _ _ _ _ _ H1), H3, andb_true_r, andb_true_l.
  unfold fast_core in H1. rewrite !andb_true_iff in H1. destruct H1 as (((((Ha & _) & _) & _) & H5) & _).
  destruct (setup_sound c H5) as ((kA & HkA & HA) & H0 & _).
  rewrite (check_segment_proper c _ _ _ _ _ (approx_close _ _ (zlayers_represent c (zA c) kA (alpha_pos c Ha) HkA HA _ H0 _))).
  exact H2.
Qed.
