// cppwork: a C++ workload with template-heavy, deep call stacks, recorded
// with perf record --call-graph dwarf for the pfold benchmark dumps.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace work {

struct Node {
  int key;
  std::unique_ptr<Node> left, right;
};

void insert(std::unique_ptr<Node>& n, int key) {
  if (!n) {
    n = std::make_unique<Node>(Node{key, nullptr, nullptr});
    return;
  }
  insert(key < n->key ? n->left : n->right, key);
}

long walk(const Node* n, const std::function<long(int)>& f) {
  if (!n) return 0;
  return walk(n->left.get(), f) + f(n->key) + walk(n->right.get(), f);
}

template <typename Map>
void count_words(Map& m, const std::string& text) {
  std::istringstream in(text);
  std::string w;
  while (in >> w) ++m[w];
}

std::string make_text(std::mt19937& rng, int words) {
  static const char* vocab[] = {"alpha", "beta", "gamma", "delta", "epsilon",
                                "zeta", "eta", "theta", "iota", "kappa",
                                "lambda", "mu", "nu", "xi", "omicron"};
  std::string s;
  for (int i = 0; i < words; i++) {
    s += vocab[rng() % 15];
    s += std::to_string(rng() % 100);
    s += ' ';
  }
  return s;
}

}  // namespace work

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::mt19937 rng(42);
  long sink = 0;
  std::regex re("(gamma|delta)([0-9]+)");
  for (int r = 0; r < rounds; r++) {
    std::string text = work::make_text(rng, 20000);
    std::unordered_map<std::string, int> um;
    std::map<std::string, int> om;
    work::count_words(um, text);
    work::count_words(om, text);
    std::vector<std::pair<std::string, int>> v(um.begin(), um.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    for (auto it = std::sregex_iterator(text.begin(), text.begin() + 20000, re);
         it != std::sregex_iterator(); ++it)
      sink += it->length();
    std::unique_ptr<work::Node> root;
    for (int i = 0; i < 20000; i++) work::insert(root, rng() % 1000000);
    sink += work::walk(root.get(), [&](int k) { return long(k % 7); });
    sink += v.size() + om.size();
  }
  return int(sink & 1);
}
