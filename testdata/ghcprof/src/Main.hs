-- A small Haskell workload for GHC's cost-centre profiler: recursion,
-- a second module, cost centres with UTF-8 names, an explicit SCC, and
-- work on two capabilities.
module Main (main) where

import Control.Concurrent (forkIO, newEmptyMVar, putMVar, takeMVar)
import Control.Exception (evaluate)
import qualified Data.Map.Strict as M
import System.Environment (getArgs)

import Shapes

fib :: Int -> Integer
fib n = if n < 2 then toInteger n else fib (n - 1) + fib (n - 2)

-- A name outside ASCII: GHC writes cost centres in UTF-8.
größe :: [Shape] -> Double
größe = sum . map area

単語数 :: String -> M.Map String Int
単語数 = M.fromListWith (+) . map (\w -> (w, 1)) . words

collatz :: Int -> Int
collatz 1 = 0
collatz n
  | even n = 1 + collatz (n `div` 2)
  | otherwise = 1 + collatz (3 * n + 1)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of
        (a : _) -> read a
        _ -> 27
  done <- newEmptyMVar
  _ <- forkIO $ do
    r <- evaluate (maximum (map collatz [1 .. 200000]))
    putMVar done r
  print (fib n)
  print (größe (map shape [1 .. 100000]))
  let text = concat (replicate 2000 "the quick brown fox jumps over the lazy dog ")
  print (M.toList ({-# SCC "count_words" #-} 単語数 text))
  takeMVar done >>= print
