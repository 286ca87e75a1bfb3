// libigl's Direct Delta Mush (Le & Lewis 2019, variant 0; igl::direct_delta_mush_precomputation and
// igl::direct_delta_mush, header-only, Eigen's SimplicialLDLT), timed as corskin's bench times its
// own: the precomputation and one frame, one thread, medians. Driven by bench/native/peers.ts;
// see bench/native/README.md. libigl is not in this repository (MPL-2.0): build with
// -I$LIBIGL/include.
//
//   ddm <dir> <precomputation reps> <frame reps>
//
// <dir>/ddm.bin (little-endian): int32 n, t, m, F, p; f64 lambda, kappa, alpha; f64 V[3n] (rest
// positions, row-major), int32 T[3t] (triangles), f64 W[n·m] (weights, row-major), f64 X[F·m·12]
// (per frame and bone the 3×4 affine [R | t], row-major). Prints JSON; writes <dir>/ddm.f64, the
// positions of frame 1 (frame 0 when F = 1), row-major.
#include <igl/direct_delta_mush.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

template <class T> static void take(FILE *f, T *v, size_t count) {
  if (std::fread(v, sizeof(T), count, f) != count) {
    std::fprintf(stderr, "ddm: ddm.bin is too short\n");
    std::exit(2);
  }
}
static double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  size_t h = x.size() / 2;
  return x.size() % 2 ? x[h] : 0.5 * (x[h - 1] + x[h]);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: ddm <dir> <precomputation reps> <frame reps>\n");
    return 2;
  }
  std::string dir = argv[1];
  int preReps = std::atoi(argv[2]), frameReps = std::atoi(argv[3]);
  FILE *f = std::fopen((dir + "/ddm.bin").c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "ddm: cannot open %s/ddm.bin\n", dir.c_str());
    return 2;
  }
  int h[5];
  take(f, h, 5);
  const int n = h[0], t = h[1], m = h[2], F = h[3], p = h[4];
  double lkA[3];
  take(f, lkA, 3);
  std::vector<double> v(3 * n), w((size_t)n * m), x((size_t)F * m * 12);
  std::vector<int> tri(3 * t);
  take(f, v.data(), v.size());
  take(f, tri.data(), tri.size());
  take(f, w.data(), w.size());
  take(f, x.data(), x.size());
  std::fclose(f);

  Eigen::MatrixXd V(n, 3), W(n, m);
  Eigen::MatrixXi T(t, 3);
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) V(i, c) = v[3 * i + c];
  for (int i = 0; i < t; i++)
    for (int c = 0; c < 3; c++) T(i, c) = tri[3 * i + c];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) W(i, j) = w[(size_t)i * m + j];
  typedef std::vector<Eigen::Affine3d, Eigen::aligned_allocator<Eigen::Affine3d>> Poses;
  std::vector<Poses> frames(F, Poses(m));
  for (int g = 0; g < F; g++)
    for (int j = 0; j < m; j++) {
      Eigen::Affine3d A = Eigen::Affine3d::Identity();
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) A.matrix()(r, c) = x[((size_t)g * m + j) * 12 + 4 * r + c];
      frames[g][j] = A;
    }

  Eigen::MatrixXd Omega, U;
  std::vector<double> pre, frame;
  for (int r = 0; r < preReps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    igl::direct_delta_mush_precomputation(V, T, W, p, lkA[0], lkA[1], lkA[2], Omega);
    pre.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  for (int g = 0; g < F; g++) igl::direct_delta_mush(V, frames[g], Omega, U); // warm-up
  for (int r = 0; r < frameReps; r++)
    for (int g = 0; g < F; g++) {
      auto t0 = std::chrono::steady_clock::now();
      igl::direct_delta_mush(V, frames[g], Omega, U);
      frame.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  igl::direct_delta_mush(V, frames[F > 1 ? 1 : 0], Omega, U);
  std::vector<double> out(3 * n);
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) out[3 * i + c] = U(i, c);
  FILE *o = std::fopen((dir + "/ddm.f64").c_str(), "wb");
  std::fwrite(out.data(), 8, out.size(), o);
  std::fclose(o);
  std::printf("{\"precomputeSeconds\": %.6f, \"frameMs\": %.6f}\n", median(pre), median(frame));
  return 0;
}
