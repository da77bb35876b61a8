#include <vector>
#include <map>
#include <string>
#include <thread>
#include <functional>
template <typename T> struct Acc { T sum{}; void add(const T& v) { for (int i = 0; i < 50; i++) sum += v * i; } };
namespace work {
std::map<std::string, int> build(int n) { std::map<std::string, int> m; for (int i = 0; i < n; i++) m[std::to_string(i)] = i; return m; }
double crunch(const std::vector<double>& v) { Acc<double> a; for (auto x : v) a.add(x); return a.sum; }
}
int main() {
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; t++) ts.emplace_back([t] {
    double s = 0;
    for (int r = 0; r < 200; r++) { auto m = work::build(2000); std::vector<double> v(20000, t + r); s += work::crunch(v) + m.size(); }
    if (s == 42) __builtin_trap();
  });
  for (auto& t : ts) t.join();
}
