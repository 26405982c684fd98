(** * The statement: the model of docs/theory.md §1 and the claims that are proved about it.

    Besides Coq's kernel and its evaluator, this file is all that must be trusted: every
    kernel-checked result proves a proposition defined here, about the dynamics defined here.
    Read it against docs/theory.md §1 (the model) and §2-3 (T0, T1, D1, D3, D7). *)

From Coq Require Import QArith Qabs List.
Import ListNotations.
Open Scope Q_scope.

(** ** Vectors of rationals

    A vector is a list of rationals; coordinate [a] is read with default 0, so a shorter list
    is the same vector padded with zeros. [Qred] writes each result in lowest terms: it keeps
    the number ([Qred_correct]) and keeps the numbers short for evaluation. *)
Definition vec := list Q.
Definition coord (x : vec) (a : nat) : Q := nth a x 0.

(** [x] and [y] are the same vector: equal in every coordinate. *)
Definition veq (x y : vec) : Prop := forall a, coord x a == coord y a.

Fixpoint vadd (x y : vec) : vec :=
  match x, y with
  | a :: x', b :: y' => Qred (a + b) :: vadd x' y'
  | [], _ => y
  | _, [] => x
  end.
Definition vscale (c : Q) (x : vec) : vec := map (fun a => Qred (c * a)) x.
Definition vsub (x y : vec) : vec := vadd x (vscale (-1) y).

(** The Euclidean inner product [sum_a x_a y_a]. *)
Fixpoint dot (x y : vec) : Q :=
  match x, y with
  | a :: x', b :: y' => Qred (a * b + dot x' y')
  | _, _ => 0
  end.

(** A matrix is its list of rows; [matvec A x] is A x. *)
Definition matvec (A : list vec) (x : vec) : vec := map (fun row => dot row x) A.

Definition vsum (xs : list vec) : vec := fold_right vadd [] xs.
Definition mean (xs : list vec) : vec := vscale (1 # Pos.of_nat (length xs)) (vsum xs).

(** ** The model (docs/theory.md §1) *)
Record config := { A : list vec; alpha : Q; tokens : list vec }.

Definition ntokens (c : config) : nat := length (tokens c).
(** The dimension d: the length of the first token (every token has it). *)
Definition dim (c : config) : nat := length (hd [] (tokens c)).

Definition qmax (x y : Q) : Q := if Qle_bool x y then y else x.
Definition max_list (s : list Q) : Q := fold_right qmax (hd 0 s) s.

(** The attention set C_i(Z): the tokens j whose score <A z_i, z_j> is the largest, ties
    included, in increasing order. *)
Definition attention (A : list vec) (Z : list vec) (i : nat) : list nat :=
  let u := matvec A (nth i Z []) in
  let scores := map (dot u) Z in
  let top := max_list scores in
  map fst (filter (fun js => Qeq_bool (snd js) top) (combine (seq 0 (length Z)) scores)).

Definition attention_sets (c : config) (Z : list vec) : list (list nat) :=
  map (attention (A c) Z) (seq 0 (length Z)).

(** One layer: z_i' = (z_i + alpha mean_{j in C_i} z_j) / (1 + alpha), all tokens at once. *)
Definition update (alpha : Q) (z m : vec) : vec := vscale (/ (1 + alpha)) (vadd z (vscale alpha m)).
Definition step (c : config) (Z : list vec) (sets : list (list nat)) : list vec :=
  map (fun i => update (alpha c) (nth i Z []) (mean (map (fun j => nth j Z []) (nth i sets []))))
      (seq 0 (length Z)).
Definition layer (c : config) (Z : list vec) : list vec := step c Z (attention_sets c Z).

(** Z^0 is the configuration's tokens; Z^(k+1) = layer (Z^k). *)
Fixpoint layers (c : config) (k : nat) : list vec :=
  match k with
  | O => tokens c
  | S k' => layer c (layers c k')
  end.

Definition position (c : config) (k i : nat) : vec := nth i (layers c k) [].
Definition attends (c : config) (k i : nat) : list nat := attention (A c) (layers c k) i.

(** Token i leads at layer k: C_i(Z^k) = {i}. *)
Definition leads (c : config) (k i : nat) : Prop := attends c k i = [i].

(** ** Generic facts (docs/theory.md §3), for every configuration, A and alpha > 0 *)

(** D1: each token of layer k+1 is a convex combination of the tokens of layer k. *)
Fixpoint combination (Z : list vec) (ws : list (Q * nat)) : vec :=
  match ws with
  | [] => []
  | (w, j) :: ws' => vadd (vscale w (nth j Z [])) (combination Z ws')
  end.
Definition D1_statement : Prop :=
  forall c k i, 0 < alpha c -> (i < ntokens c)%nat ->
  exists ws : list (Q * nat),
    Forall (fun wj => 0 <= fst wj /\ (snd wj < ntokens c)%nat) ws /\
    fold_right Qplus 0 (map fst ws) == 1 /\
    veq (position c (S k) i) (combination (layers c k) ws).

(** D3: a leader leads again at the next layer and does not move. *)
Definition D3_statement : Prop :=
  forall c k i, 0 < alpha c -> (i < ntokens c)%nat -> leads c k i ->
  leads c (S k) i /\ veq (position c (S k) i) (position c k i).

(** D2: when A is symmetric positive semidefinite (<A x, y> = <A y, x> and <A x, x> >= 0 for
    all x, y), no token's squared A-norm <A z_i, z_i> decreases from a layer to the next. *)
Definition symmetric_psd (M : list vec) : Prop :=
  (forall x y, dot (matvec M x) y == dot (matvec M y) x) /\ (forall x, 0 <= dot (matvec M x) x).
Definition D2_statement : Prop :=
  forall c k i, 0 < alpha c -> symmetric_psd (A c) -> (i < ntokens c)%nat ->
  dot (matvec (A c) (position c k i)) (position c k i) <=
  dot (matvec (A c) (position c (S k) i)) (position c (S k) i).

(** ** The claims about one configuration, for every later layer *)

(** What happens to a token from a layer k on (docs/theory.md D3, D7). *)
Inductive fate :=
  | Leader (k : nat)             (** leads first at layer k *)
  | Fixed (k : nat) (G : list nat) (** from layer k, does not move and C_i = G ∪ {i} *)
  | Locked (k : nat) (F : list nat) (** from layer k, C_i = F and z_i moves geometrically to m_F *)
  | Path (k : nat) (F : list nat).  (** from layer k, C_i = F (a closed-form path, D9) *)

Fixpoint pow (q : Q) (t : nat) : Q :=
  match t with O => 1 | S t' => q * pow q t' end.

Definition same_set (s t : list nat) : Prop := forall j, In j s <-> In j t.

Definition fate_holds (c : config) (i : nat) (f : fate) : Prop :=
  match f with
  | Leader k =>
      (forall k', (k' < k)%nat -> ~ leads c k' i) /\
      forall t, leads c (k + t) i /\ veq (position c (k + t) i) (position c k i)
  | Fixed k G =>
      forall t, same_set (attends c (k + t) i) (i :: G) /\
                veq (position c (k + t) i) (position c k i)
  | Locked k F =>
      let m := mean (map (position c k) F) in
      forall t, attends c (k + t) i = F /\
                veq (position c (k + t) i)
                    (vadd m (vscale (pow (/ (1 + alpha c)) t) (vsub (position c k i) m)))
  | Path k F => forall t, attends c (k + t) i = F
  end.

Definition is_leader_fate (f : fate) : Prop :=
  match f with Leader _ => True | _ => False end.

(** Token i converges to p: for every rational eps > 0, from some layer on every
    coordinate is within eps of p's. *)
Definition converges_to (c : config) (i : nat) (p : vec) : Prop :=
  forall eps, 0 < eps -> exists K, forall k, (K <= k)%nat ->
    forall a, Qabs (coord (position c k i) a - coord p a) <= eps.

(** The outcome a certificate proves: every token's fate; T0 (a leader exists); T1 (each
    leader is fixed from its first leading layer: in [fate_holds]); the leaders are exactly
    the tokens whose fate is [Leader]; every token's limit; and the positions of layer K. *)
Definition Outcome (c : config) (fates : list fate) (limits : list vec)
                   (K : nat) (ZK : list vec) : Prop :=
  length fates = ntokens c /\ length limits = ntokens c /\
  (exists i k, (i < ntokens c)%nat /\ leads c k i) /\
  (forall i, (i < ntokens c)%nat -> fate_holds c i (nth i fates (Leader 0))) /\
  (forall i, (i < ntokens c)%nat ->
     ((exists k, leads c k i) <-> is_leader_fate (nth i fates (Leader 0)))) /\
  (forall i, (i < ntokens c)%nat -> converges_to c i (nth i limits [])) /\
  length ZK = ntokens c /\ (forall i, (i < ntokens c)%nat -> veq (position c K i) (nth i ZK [])).

(** ** The polytope K of the leaders' limits (T2, T3, T4) *)

Definition is_leader_b (f : fate) : bool := match f with Leader _ => true | _ => false end.

(** The limits of the tokens whose fate is [Leader], in token order, leaving token [skip] out
    (none is left out when [skip] is not a token). K is their convex hull. *)
Definition leader_limits (fates : list fate) (limits : list vec) (skip : nat) : list vec :=
  map (fun i => nth i limits [])
      (filter (fun i => is_leader_b (nth i fates (Leader 0)) && negb (Nat.eqb i skip)) (seq 0 (length fates))).

(** x is a convex combination of the points P (x lies in conv(P)). *)
Definition in_hull (P : list vec) (x : vec) : Prop :=
  exists ws : list (Q * nat),
    Forall (fun wj => 0 <= fst wj /\ (snd wj < length P)%nat) ws /\
    fold_right Qplus 0 (map fst ws) == 1 /\ veq x (combination P ws).

(** T2: no leader's limit is a convex combination of the other leaders' limits, so they are
    pairwise distinct and are exactly the vertices of K. T3: every limit lies on the boundary
    of K in Q^d: in K, and on a hyperplane with a normal v in Q^d, v <> 0, that supports K. *)
Definition Polytope (d : nat) (fates : list fate) (limits : list vec) : Prop :=
  let K := leader_limits fates limits (length fates) in
  (forall i, (i < length fates)%nat -> is_leader_fate (nth i fates (Leader 0)) ->
     ~ in_hull (leader_limits fates limits i) (nth i limits [])) /\
  (forall i, (i < length fates)%nat ->
     in_hull K (nth i limits []) /\
     exists v, (exists a, (a < d)%nat /\ ~ coord v a == 0) /\
       forall y, in_hull K y -> dot v y <= dot v (nth i limits [])).

(** T4: a limit that is no leader's limit minimises the A-norm <A x, x> over a face of K: the
    face exposed by some v (the points of K where <v, .> is largest), which holds it (with
    [Polytope], which puts every limit in K). *)
Definition T4_statement (M : list vec) (fates : list fate) (limits : list vec) : Prop :=
  let K := leader_limits fates limits (length fates) in
  forall i, (i < length fates)%nat ->
    (forall j, (j < length fates)%nat -> is_leader_fate (nth j fates (Leader 0)) ->
       ~ veq (nth i limits []) (nth j limits [])) ->
    exists v, (forall y, in_hull K y -> dot v y <= dot v (nth i limits [])) /\
      forall x, in_hull K x -> dot v x == dot v (nth i limits []) ->
        dot (matvec M (nth i limits [])) (nth i limits []) <= dot (matvec M x) x.

(** T0 fails: no token leads at any layer (docs/theory.md D11, a pattern that repeats). *)
Definition NoLeaderEver (c : config) : Prop := forall k i, (i < ntokens c)%nat -> ~ leads c k i.
