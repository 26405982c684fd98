(** * Why the checker rejects a certificate: the first condition that fails.

    Not part of what is trusted: a kernel-checked result rests on [certificate_sound]
    alone. This mirrors [check] to name, for a rejected certificate, the first failing part. *)

From Coq Require Import QArith List Bool.
From HardmaxVerify Require Import Statement Algebra Dynamics Checker Polytope Norms.
Import ListNotations.
Open Scope Q_scope.

Inductive failure :=
  | NoFailure
  | AlphaNotPositive
  | FateCount
  | LimitCount
  | NoLeader
  | TokenFails (layer token : nat)
  | TokenNotFirst (layer token : nat)
  | ReplayFails (layer : nat).

Fixpoint first_token (c : config) (fates : list fate) (k : nat) (Z : list vec) (i : nat)
         (fs : list fate) (sets : list (list nat)) (zs ps : list vec) : option failure :=
  match fs with
  | [] => None
  | f :: fs' =>
      if negb (establishes c fates k Z i f (hd [] sets) (hd [] zs) (hd [] ps)) then Some (TokenFails k i)
      else if negb (first_at c fates k Z i f (hd [] sets) (hd [] zs)) then Some (TokenNotFirst k i)
      else first_token c fates k Z (S i) fs' (tl sets) (tl zs) (tl ps)
  end.

Fixpoint first_layer_failure (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec)
         (k fuel : nat) (Z : list vec) : failure :=
  let sets := attention_sets c Z in
  match first_token c fates k Z 0 fates sets Z limits with
  | Some why => why
  | None =>
      if (if Nat.eqb k K then veqb_all Z ZK else true) then
        match fuel with
        | O => NoFailure
        | S fuel' => first_layer_failure c fates limits K ZK (S k) fuel' (step c Z sets)
        end
      else ReplayFails k
  end.

Definition first_failure (c : config) (fates : list fate) (limits : list vec) (K : nat) (ZK : list vec) : failure :=
  if Qle_bool (alpha c) 0 then AlphaNotPositive
  else if negb (Nat.eqb (length fates) (ntokens c)) then FateCount
  else if negb (Nat.eqb (length limits) (ntokens c)) then LimitCount
  else if negb (existsb leader_fate fates) then NoLeader
  else first_layer_failure c fates limits K ZK 0 (last_layer fates K) (tokens c).

(** The first token whose T2/T3 conditions fail ([length fates] for a wrong number of
    directions or multipliers), or None. *)
Definition polytope_failure (d : nat) (fates : list fate) (limits : list vec) (dirs : list vec)
           (mults : list (list (Q * nat))) : option nat :=
  let K := leader_limits fates limits (length fates) in
  if negb (Nat.eqb (length dirs) (length fates) && Nat.eqb (length mults) (length fates)) then Some (length fates)
  else find (fun i => negb (check_token_polytope d fates limits K i (nth i dirs []) (nth i mults [])))
            (seq 0 (length fates)).

(** The first token whose T4 condition fails, or None. *)
Definition t4_failure (M : list vec) (fates : list fate) (limits : list vec) (faces : list vec) : option nat :=
  let K := leader_limits fates limits (length fates) in
  find (fun i => negb (is_vertex_limit fates limits i || check_face M K (nth i limits []) (nth i faces [])))
       (seq 0 (length fates)).

(** Every number as its numerator and denominator, for reading the model's layers back:
    [Eval vm_compute in exact_form (layers cfg 3).] *)
Definition exact_form (Y : list vec) : list (list (Z * Z)) :=
  map (map (fun q => (Qnum q, Zpos (Qden q)))) Y.
