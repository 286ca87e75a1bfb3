/**
 * GLSL replacing three.js's skinning shader chunks (`skinning_pars_vertex`, `skinbase_vertex`,
 * `skinnormal_vertex`, `skinning_vertex`) for DQS and CoR skinning, WebGL 2 (GLSL ES 3.0).
 *
 * Joint data come from `corskinJoints`, a float RGBA texture with a fixed number of texels per
 * joint, filled on the CPU once per frame and skeleton ({@link jointTexels}), in the mesh's own
 * (bind) space — `bindMatrixInverse · boneMatrix · bindMatrix` already applied:
 * - DQS: 2 texels, the unit dual quaternion (real, dual);
 * - CoR: 4 texels, the 3×4 skinning matrix as three rows, then the rotation quaternion.
 *
 * @module
 */

/** Texels per joint in the joint texture, by method. */
export const TEXELS_PER_JOINT = { dqs: 2, cor: 4 } as const;

const fetchFn = (stride: number) => /* glsl */ `
uniform highp sampler2D corskinJoints;
vec4 corskinFetch( const in float joint, const in int k ) {
  int size = textureSize( corskinJoints, 0 ).x;
  int i = int( joint ) * ${stride} + k;
  return texelFetch( corskinJoints, ivec2( i % size, i / size ), 0 );
}
vec3 corskinRotate( const in vec4 q, const in vec3 v ) {
  return v + 2.0 * cross( q.xyz, cross( q.xyz, v ) + q.w * v );
}
`;

/** Antipodality: weights of influences 1–3 negated where their quaternion opposes influence 0's. */
const signedWeights = (q: string) => /* glsl */ `
  float csW1 = dot( ${q}0, ${q}1 ) < 0.0 ? -skinWeight.y : skinWeight.y;
  float csW2 = dot( ${q}0, ${q}2 ) < 0.0 ? -skinWeight.z : skinWeight.z;
  float csW3 = dot( ${q}0, ${q}3 ) < 0.0 ? -skinWeight.w : skinWeight.w;`;

/** Normals and tangents rotated by the blended unit quaternion `q`. */
const rotatedNormals = (q: string) => /* glsl */ `
#ifdef USE_SKINNING
  objectNormal = corskinRotate( ${q}, objectNormal );
  #ifdef USE_TANGENT
    objectTangent = corskinRotate( ${q}, objectTangent );
  #endif
#endif
`;

/** The chunks for DQS (Kavan et al. 2008): blend, normalise, apply `v' = R v + t`. */
const DQS_CHUNKS = {
  pars: /* glsl */ `
#ifdef USE_SKINNING
${fetchFn(2)}
#endif
`,
  base: /* glsl */ `
#ifdef USE_SKINNING
  vec4 csR0 = corskinFetch( skinIndex.x, 0 ), csD0 = corskinFetch( skinIndex.x, 1 );
  vec4 csR1 = corskinFetch( skinIndex.y, 0 ), csD1 = corskinFetch( skinIndex.y, 1 );
  vec4 csR2 = corskinFetch( skinIndex.z, 0 ), csD2 = corskinFetch( skinIndex.z, 1 );
  vec4 csR3 = corskinFetch( skinIndex.w, 0 ), csD3 = corskinFetch( skinIndex.w, 1 );
${signedWeights('csR')}
  vec4 csReal = skinWeight.x * csR0 + csW1 * csR1 + csW2 * csR2 + csW3 * csR3;
  vec4 csDual = skinWeight.x * csD0 + csW1 * csD1 + csW2 * csD2 + csW3 * csD3;
  float csLen = length( csReal );
  csReal /= csLen;
  csDual /= csLen;
  vec3 csT = 2.0 * ( csReal.w * csDual.xyz - csDual.w * csReal.xyz + cross( csReal.xyz, csDual.xyz ) );
#endif
`,
  normal: rotatedNormals('csReal'),
  position: /* glsl */ `
#ifdef USE_SKINNING
  transformed = corskinRotate( csReal, transformed ) + csT;
#endif
`,
};

/** The chunks for CoR skinning (Le & Hodgins 2016, Algorithm 1). */
const COR_CHUNKS = {
  pars: /* glsl */ `
#ifdef USE_SKINNING
in vec3 _center_of_rotation;
${fetchFn(4)}
vec3 corskinTransform( const in float joint, const in vec3 p ) {
  vec4 p1 = vec4( p, 1.0 );
  return vec3( dot( corskinFetch( joint, 0 ), p1 ), dot( corskinFetch( joint, 1 ), p1 ), dot( corskinFetch( joint, 2 ), p1 ) );
}
#endif
`,
  base: /* glsl */ `
#ifdef USE_SKINNING
  vec4 csQ0 = corskinFetch( skinIndex.x, 3 ), csQ1 = corskinFetch( skinIndex.y, 3 );
  vec4 csQ2 = corskinFetch( skinIndex.z, 3 ), csQ3 = corskinFetch( skinIndex.w, 3 );
${signedWeights('csQ')}
  vec4 csQ = normalize( skinWeight.x * csQ0 + csW1 * csQ1 + csW2 * csQ2 + csW3 * csQ3 );
  // LBS of the center of rotation.
  vec3 csC = _center_of_rotation;
  vec3 csCp = skinWeight.x * corskinTransform( skinIndex.x, csC ) + skinWeight.y * corskinTransform( skinIndex.y, csC )
    + skinWeight.z * corskinTransform( skinIndex.z, csC ) + skinWeight.w * corskinTransform( skinIndex.w, csC );
#endif
`,
  normal: rotatedNormals('csQ'),
  position: /* glsl */ `
#ifdef USE_SKINNING
  transformed = corskinRotate( csQ, transformed - csC ) + csCp;
#endif
`,
};

/**
 * Replaces three's skinning chunks in a vertex shader source with the method's. `skinbase_vertex`
 * runs before `skinnormal_vertex` and `skinning_vertex` in every built-in material, so the blend
 * happens once.
 */
export function patchVertexShader(source: string, method: 'dqs' | 'cor'): string {
  const c = method === 'dqs' ? DQS_CHUNKS : COR_CHUNKS;
  return source
    .replace('#include <skinning_pars_vertex>', c.pars)
    .replace('#include <skinbase_vertex>', c.base)
    .replace('#include <skinnormal_vertex>', c.normal)
    .replace('#include <skinning_vertex>', c.position);
}
