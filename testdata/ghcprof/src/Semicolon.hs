-- A cost centre whose name holds ';' (GHC accepts it in an SCC pragma):
-- inferno's collapse-ghcprof splits it into two frames.
main :: IO ()
main = print ({-# SCC "count;words" #-} length (words (concat (replicate 200000 "a b "))))
