// templates.cc: a C++ workload with namespaces, templates, lambdas,
// operators and an anonymous namespace, to sample with gdb and eu-stack.
// Its function names hold spaces, parentheses, angle brackets and commas
// ("(anonymous namespace)::", "std::vector<int, std::allocator<int> >",
// "{lambda(int, int)#1}", "operator()"), the cases a naive frame parser
// cuts short. Some time is spent in libstdc++ (number formatting), which
// has no debug information here: gdb marks those frames "from LIB".
//
// Usage: templates SECONDS
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace pfold {
namespace work {

volatile std::uint64_t sink;

template <typename T, int N>
struct Matrix {
	T cell[N][N];

	Matrix operator*(const Matrix &o) const
	{
		Matrix r{};
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				T s{};
				for (int k = 0; k < N; k++)
					s += cell[i][k] * o.cell[k][j];
				r.cell[i][j] = s;
			}
		return r;
	}
};

template <typename T, int N>
__attribute__((noinline)) T power_trace(Matrix<T, N> m, int n)
{
	Matrix<T, N> r = m;
	for (int i = 1; i < n; i++)
		r = r * m;
	T t{};
	for (int i = 0; i < N; i++)
		t += r.cell[i][i];
	return t;
}

class Shape {
public:
	virtual ~Shape() = default;
	virtual double area(int steps) const = 0;
};

class Circle : public Shape {
public:
	explicit Circle(double r) : r_(r) {}
	__attribute__((noinline)) double area(int steps) const override
	{
		double a = 0;
		for (int i = 0; i < steps; i++)
			a += r_ * r_ * 3.14159 / (1 + i % 7);
		return a;
	}

private:
	double r_;
};

template <typename Key, typename Value, typename Compare = std::less<Key>>
class Table {
public:
	__attribute__((noinline)) void fill(int n)
	{
		for (int i = 0; i < n; i++)
			rows_[Key(i * 7919 % n)] = Value(i);
	}
	__attribute__((noinline)) Value sum() const
	{
		Value s{};
		for (const auto &kv : rows_)
			s += kv.second;
		return s;
	}

private:
	std::map<Key, Value, Compare> rows_;
};

} // namespace work
} // namespace pfold

namespace {

using pfold::work::sink;

__attribute__((noinline)) void sort_with(std::vector<int> &v, const std::function<bool(int, int)> &less)
{
	std::sort(v.begin(), v.end(), less);
}

void sorter()
{
	std::vector<int> v(20000);
	for (;;) {
		for (std::size_t i = 0; i < v.size(); i++)
			v[i] = int((i * 2654435761u) % 100003);
		sort_with(v, [](int a, int b) { return (a % 1000) < (b % 1000) || ((a % 1000) == (b % 1000) && a < b); });
		sink += v[0];
	}
}

void matrices()
{
	pfold::work::Matrix<double, 8> m{};
	for (int i = 0; i < 8; i++)
		m.cell[i][i] = 1.0001;
	for (;;)
		sink += std::uint64_t(pfold::work::power_trace(m, 200));
}

void shapes()
{
	std::vector<std::unique_ptr<pfold::work::Shape>> v;
	for (int i = 0; i < 4; i++)
		v.push_back(std::make_unique<pfold::work::Circle>(i + 1.5));
	for (;;)
		for (const auto &s : v)
			sink += std::uint64_t(s->area(100000));
}

void tables()
{
	for (;;) {
		pfold::work::Table<long, double, std::greater<long>> t;
		t.fill(5000);
		sink += std::uint64_t(t.sum());
	}
}

__attribute__((noinline)) std::string format_all(int n)
{
	std::ostringstream out;
	for (int i = 0; i < n; i++)
		out << i * 1.5 << ' ' << i << '\n';
	return out.str();
}

void formatter()
{
	for (;;)
		sink += format_all(2000).size();
}

} // namespace

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? std::stoi(argv[1]) : 60;
	std::vector<std::thread> threads;
	threads.emplace_back(sorter);
	threads.emplace_back(matrices);
	threads.emplace_back(shapes);
	threads.emplace_back(tables);
	threads.emplace_back(formatter);
	std::this_thread::sleep_for(std::chrono::seconds(seconds));
	std::_Exit(0);
}
