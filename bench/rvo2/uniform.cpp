// RVO2's uniform benchmark: N agents uniform in a square of side 4*sqrt(N), random goals in
// the same square, defaults (15, 10, 10, 10, 1.5, 2), dt 0.25; pref = goal - p cut to 1.
// Usage: uniform N STEPS SORTED(0|1). Prints the median doStep time (ms) and the mean speed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include "RVO.h"
using RVO::Vector2;
static unsigned morton(unsigned x, unsigned y) {
  unsigned r = 0;
  for (int b = 0; b < 16; ++b) r |= ((x >> b) & 1u) << (2 * b) | ((y >> b) & 1u) << (2 * b + 1);
  return r;
}
int main(int argc, char **argv) {
  int n = std::atoi(argv[1]), steps = std::atoi(argv[2]), sorted = std::atoi(argv[3]);
  float side = 4.0f * std::sqrt((float)n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, side);
  std::vector<std::pair<Vector2, Vector2>> a(n);
  for (auto &p : a) { p.first = Vector2(u(rng), u(rng)); p.second = Vector2(u(rng), u(rng)); }
  if (sorted) {
    std::sort(a.begin(), a.end(), [&](const std::pair<Vector2, Vector2> &x, const std::pair<Vector2, Vector2> &y) {
      return morton((unsigned)(x.first.x() / side * 65535), (unsigned)(x.first.y() / side * 65535)) <
             morton((unsigned)(y.first.x() / side * 65535), (unsigned)(y.first.y() / side * 65535));
    });
  }
  RVO::RVOSimulator s; s.setTimeStep(0.25f);
  s.setAgentDefaults(15.0f, 10, 10.0f, 10.0f, 1.5f, 2.0f);
  for (auto &p : a) s.addAgent(p.first);
  std::vector<double> ms;
  for (int step = 0; step < steps; ++step) {
    for (int i = 0; i < n; ++i) {
      Vector2 v = a[i].second - s.getAgentPosition(i);
      if (RVO::absSq(v) > 1.0f) v = RVO::normalize(v);
      s.setAgentPrefVelocity(i, v);
    }
    auto t0 = std::chrono::steady_clock::now();
    s.doStep();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::vector<double> m(ms.begin() + 2, ms.end());
  std::sort(m.begin(), m.end());
  double sp = 0;
  for (int i = 0; i < n; ++i) sp += RVO::abs(s.getAgentVelocity(i));
  std::printf("{\"n\":%d,\"sorted\":%d,\"median_ms\":%.3f,\"mean_speed\":%.4f}\n", n, sorted, m[m.size() / 2], sp / n);
}
