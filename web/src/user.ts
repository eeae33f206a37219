import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api/client';

/** The signed-in user (GET /api/v1/user): the header, the permission checks and the pages that name the user read it. */
export const useUser = () => useQuery({ queryKey: ['user'], queryFn: () => unwrap(api.GET('/api/v1/user')) });
