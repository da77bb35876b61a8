module Tree = struct
  type t = Leaf | Node of t * int * t
  let rec insert x = function
    | Leaf -> Node (Leaf, x, Leaf)
    | Node (l, v, r) as n -> if x < v then Node (insert x l, v, r) else if x > v then Node (l, v, insert x r) else n
  let rec sum = function Leaf -> 0 | Node (l, v, r) -> sum l + v + sum r
end
let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)
let (+++) a b = a * 31 + b
let work' k = let t = ref Tree.Leaf in for i = 0 to 200000 do t := Tree.insert ((i * 7919 + k) mod 100003) !t done; Tree.sum !t
let () =
  let s = ref 0 in
  for k = 0 to 25 do s := !s +++ work' k; s := !s + fib 27 done;
  let h = Hashtbl.create 16 in for i = 0 to 2000000 do Hashtbl.replace h (i mod 5000) i done;
  Printf.printf "%d %d\n" !s (Hashtbl.length h)
