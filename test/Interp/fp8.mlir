// FP8 element types in KIR (f8E4M3FN = T.f8e4m3, f8E5M2 = T.f8e5m2): views, casts and bitcasts
// parse, verify and print; the KIR and pgpu interpreters convert with torch's rules (nearest even;
// e4m3 past 464 is NaN, e5m2 from 61440 on is inf; docs/language.md, Conversions).
// RUN: tessel-opt %s | FileCheck %s --check-prefix=PARSE
// RUN: tessel run %s --shape N=20 --out %t.kir | FileCheck %s --check-prefix=IN-RANGE
// RUN: tessel run %s --shape N=20 --stage pgpu --out %t.pgpu | FileCheck %s --check-prefix=IN-RANGE
// RUN: tessel run %s --shape N=40 | FileCheck %s --check-prefix=OVERFLOW
// RUN: tessel run %s --shape N=40 --stage pgpu | FileCheck %s --check-prefix=OVERFLOW

// PARSE: kir.kernel @q(%{{.*}}: !kir.view<f8E4M3FN, [N], out>, %{{.*}}: !kir.view<f8E5M2, [N], out>
// PARSE: kir.cast %{{.*}} : tensor<?xf32> to tensor<?xf8E4M3FN>
// PARSE: kir.cast %{{.*}} : tensor<?xf32> to tensor<?xf8E5M2>
// PARSE: kir.bitcast %{{.*}} : tensor<?xf8E4M3FN> to tensor<?xi8>
// PARSE: kir.cast %{{.*}} : tensor<?xf8E5M2> to tensor<?xf32>

// x = 29.75 i - 300 for i in [0, N). torch: x.to(float8_e4m3fn).sum() and so on.
// IN-RANGE: y4: f8E4M3FN[20] sum=-302.5 hash=46f3e7ce5e2eca43
// IN-RANGE: y5: f8E5M2[20] sum=-430.5 hash=1f78282380c17fed
// IN-RANGE: b4: i8[20] sum=779
// IN-RANGE: w4: f32[20] sum=-302.5 hash=46f3e7ce5e2eca43
// IN-RANGE: w5: f32[20] sum=-430.5 hash=1f78282380c17fed
// COM: 29.75 * 26 - 300 = 473.5 is past e4m3's 464: NaN; e5m2 keeps every value finite.
// OVERFLOW: y4: f8E4M3FN[40] sum=nan
// OVERFLOW: y5: f8E5M2[40] sum=11089.5
// OVERFLOW: b4: i8[40] sum=3298

kir.kernel @q(%y4: !kir.view<f8E4M3FN, [N], out>, %y5: !kir.view<f8E5M2, [N], out>, %b4: !kir.view<i8, [N], out>,
              %w4: !kir.view<f32, [N], out>, %w5: !kir.view<f32, [N], out>) {
  %0 = kir.extent "N"
  %1 = arith.constant 0 : index
  %2 = kir.domain %1 to %0
  %3 = kir.indices %2 : tensor<?xindex>
  %5 = arith.constant 29.75 : f32
  %6 = kir.broadcast %5 over(%2) dims [] : f32 -> tensor<?xf32>
  %8 = arith.constant 300.0 : f32
  %9 = kir.broadcast %8 over(%2) dims [] : f32 -> tensor<?xf32>
  %4 = kir.cast %3 : tensor<?xindex> to tensor<?xf32>
  %7 = kir.binary mul %4, %6 : tensor<?xf32>
  %10 = kir.binary sub %7, %9 : tensor<?xf32>
  %11 = kir.cast %10 : tensor<?xf32> to tensor<?xf8E4M3FN>
  kir.store %11, %y4[%2] : tensor<?xf8E4M3FN>, !kir.view<f8E4M3FN, [N], out>[!kir.domain]
  %12 = kir.cast %10 : tensor<?xf32> to tensor<?xf8E5M2>
  kir.store %12, %y5[%2] : tensor<?xf8E5M2>, !kir.view<f8E5M2, [N], out>[!kir.domain]
  %13 = kir.bitcast %11 : tensor<?xf8E4M3FN> to tensor<?xi8>
  kir.store %13, %b4[%2] : tensor<?xi8>, !kir.view<i8, [N], out>[!kir.domain]
  %14 = kir.cast %11 : tensor<?xf8E4M3FN> to tensor<?xf32>
  kir.store %14, %w4[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  %15 = kir.cast %12 : tensor<?xf8E5M2> to tensor<?xf32>
  kir.store %15, %w5[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}
